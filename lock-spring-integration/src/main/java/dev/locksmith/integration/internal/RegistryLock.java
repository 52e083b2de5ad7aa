package dev.locksmith.integration.internal;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The {@link Lock} a {@code LocksmithLockRegistry} hands out for one key: a local {@link
 * ReentrantLock} that orders the threads of this registry, plus one Locksmith lease that the
 * holding thread keeps in the store, as Spring Integration's own registries do.
 *
 * <p>Only the first (outermost) hold of a thread talks to the store to acquire; every nested
 * acquire confirms the hold in the store (an owner-checked extend, as Spring Integration's Redis
 * and JDBC registries refresh their row or key on every acquire), so a hold that was lost is
 * noticed by the next {@code lock()} or {@code tryLock()} of its thread, which is how {@code
 * LockRegistryLeaderInitiator}'s heartbeat finds out. The outermost {@link #unlock()} releases the
 * lease, owner-checked.
 *
 * <p>Failures: a store that cannot be reached makes an acquire fail with {@link
 * CannotAcquireLockException} (nothing held) and a release fail with {@link
 * DataAccessResourceFailureException} (the thread's hold ends, the store frees the lock when the
 * lease runs out); a hold found lost throws {@link ConcurrentModificationException} whose cause is
 * Locksmith's {@link LeaseLostException}; {@link #unlock()} by a thread that does not hold it
 * throws {@link IllegalMonitorStateException}.
 */
public final class RegistryLock implements Lock {

  private final String name;
  private final DistributedLock store;
  private final Duration leaseTime;
  private final ReentrantLock local = new ReentrantLock();

  // Written only by the thread holding `local` (which orders them); read by others for reports.
  private volatile @Nullable Lease lease;
  private volatile Duration holdLeaseTime;
  private volatile long lastUsedNanos = System.nanoTime();

  /**
   * A lock called {@code name} whose store holds are taken from {@code store}, leased for {@code
   * leaseTime} (the lease time {@code store} was configured with).
   *
   * @throws NullPointerException if an argument is null
   */
  public RegistryLock(String name, DistributedLock store, Duration leaseTime) {
    this.name = Objects.requireNonNull(name, "name must not be null");
    this.store = Objects.requireNonNull(store, "store must not be null");
    this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime must not be null");
    this.holdLeaseTime = leaseTime;
  }

  /** The lock's name in the store (the registry key's {@code toString()}). */
  public String name() {
    return name;
  }

  @Override
  public void lock() {
    local.lock();
    boolean held = false;
    try {
      if (local.getHoldCount() > 1) {
        confirmNestedHold();
      } else {
        took(acquireUninterruptibly());
      }
      held = true;
    } finally {
      if (!held) {
        local.unlock();
      }
    }
  }

  private Lease acquireUninterruptibly() {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return store.acquire();
        } catch (InterruptedException e) {
          // Lock.lock() must not give up: set the interrupt aside and restore it on return.
          interrupted = true;
          Thread.interrupted();
        } catch (LockStoreException e) {
          throw cannotAcquire(e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    local.lockInterruptibly();
    boolean held = false;
    try {
      if (local.getHoldCount() > 1) {
        confirmNestedHold();
      } else {
        took(store.acquire());
      }
      held = true;
    } catch (LockStoreException e) {
      throw cannotAcquire(e);
    } finally {
      if (!held) {
        local.unlock();
      }
    }
  }

  @Override
  public boolean tryLock() {
    if (!local.tryLock()) {
      return false;
    }
    boolean held = false;
    try {
      if (local.getHoldCount() > 1) {
        confirmNestedHold();
        held = true;
      } else {
        Optional<Lease> taken = store.tryAcquire();
        taken.ifPresent(this::took);
        held = taken.isPresent();
      }
      return held;
    } catch (LockStoreException e) {
      throw cannotAcquire(e);
    } finally {
      if (!held) {
        local.unlock();
      }
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit must not be null");
    long start = System.nanoTime();
    // As in java.util.concurrent: a time of zero or less means do not wait.
    long budget = Math.max(0, unit.toNanos(time));
    if (!local.tryLock(budget, TimeUnit.NANOSECONDS)) {
      return false;
    }
    boolean held = false;
    try {
      if (local.getHoldCount() > 1) {
        confirmNestedHold();
        held = true;
      } else {
        long remaining = Math.max(0, budget - (System.nanoTime() - start));
        Optional<Lease> taken =
            remaining > dev.locksmith.LockOptions.MAX_WAIT.toNanos()
                // Lock.tryLock takes any time; beyond the longest bounded wait it means "as long
                // as it takes".
                ? Optional.of(store.acquire())
                : store.tryAcquire(Duration.ofNanos(remaining));
        taken.ifPresent(this::took);
        held = taken.isPresent();
      }
      return held;
    } catch (LockStoreException e) {
      throw cannotAcquire(e);
    } finally {
      if (!held) {
        local.unlock();
      }
    }
  }

  private void took(Lease taken) {
    lease = taken;
    holdLeaseTime = leaseTime;
    lastUsedNanos = System.nanoTime();
  }

  /**
   * Confirms in the store that the calling thread's outer hold still stands, extending it by its
   * lease time; throws (and the caller undoes the nested count) if it does not.
   */
  private void confirmNestedHold() {
    Lease current = Objects.requireNonNull(lease, "a held lock has a lease");
    try {
      current.extend(holdLeaseTime);
      lastUsedNanos = System.nanoTime();
    } catch (LeaseLostException e) {
      throw new ConcurrentModificationException(
          "lock '"
              + name
              + "' was lost in the store while this thread held it ("
              + e.reason()
              + "); unlock() the outer hold and lock again",
          e);
    } catch (LockStoreException e) {
      throw new CannotAcquireLockException(
          "could not confirm the hold of lock '" + name + "' in the store", e);
    }
  }

  @Override
  public void unlock() {
    if (!local.isHeldByCurrentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + name + "'");
    }
    lastUsedNanos = System.nanoTime();
    if (local.getHoldCount() > 1) {
      local.unlock();
      return;
    }
    Lease held = Objects.requireNonNull(lease, "a held lock has a lease");
    lease = null;
    try {
      held.release();
    } catch (LeaseLostException e) {
      throw new ConcurrentModificationException(
          "lock '"
              + name
              + "' was released in the store before unlock() ("
              + e.reason()
              + "): the integrity of data protected by this lock may have been compromised",
          e);
    } catch (LockStoreException e) {
      throw new DataAccessResourceFailureException(
          "failed to release lock '" + name + "'; it frees itself when its lease runs out", e);
    } finally {
      local.unlock();
    }
  }

  /**
   * Extends the calling thread's hold to {@code ttl} from now, owner-checked in the store; later
   * renewals by the watchdog and nested acquires keep that lease time.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold this lock
   * @throws IllegalStateException if the hold was lost in the store (the cause is Locksmith's
   *     {@link LeaseLostException})
   * @throws IllegalArgumentException if {@code ttl} is not a lease time the store takes
   * @throws DataAccessResourceFailureException if the store failed; the hold keeps its expiry
   */
  public void renew(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl must not be null");
    if (!local.isHeldByCurrentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + name + "'");
    }
    Lease current = Objects.requireNonNull(lease, "a held lock has a lease");
    try {
      current.extend(ttl);
      holdLeaseTime = ttl;
      lastUsedNanos = System.nanoTime();
    } catch (LeaseLostException e) {
      throw new IllegalStateException(
          "could not renew lock '" + name + "': it was lost in the store (" + e.reason() + ")", e);
    } catch (LockStoreException e) {
      throw new DataAccessResourceFailureException(
          "failed to renew lock '" + name + "'; the hold keeps its current expiry", e);
    }
  }

  /** The calling thread's lease, if it holds this lock: for its fencing token and expiry. */
  public Optional<Lease> currentLease() {
    return local.isHeldByCurrentThread() ? Optional.ofNullable(lease) : Optional.empty();
  }

  /** Whether the calling thread holds this lock. */
  public boolean isHeldByCurrentThread() {
    return local.isHeldByCurrentThread();
  }

  /** Whether any thread of this registry holds (or is taking) this lock. */
  public boolean isAcquiredInThisProcess() {
    return local.isLocked();
  }

  /**
   * When this lock was last locked, confirmed or unlocked (or created), on {@link
   * System#nanoTime()}.
   */
  public long lastUsedNanos() {
    return lastUsedNanos;
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException(
        "a distributed lock cannot offer a Condition: there is no monitor shared across processes");
  }

  private CannotAcquireLockException cannotAcquire(LockStoreException e) {
    return new CannotAcquireLockException("failed to lock '" + name + "' in the store", e);
  }

  @Override
  public String toString() {
    return "RegistryLock{" + name + (local.isLocked() ? ", locked" : "") + "}";
  }
}
