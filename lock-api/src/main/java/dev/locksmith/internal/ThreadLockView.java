package dev.locksmith.internal;

import dev.locksmith.Lease;
import dev.locksmith.ThreadOwnedLock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.jspecify.annotations.Nullable;

/**
 * The thread-owned, reentrant {@link java.util.concurrent.locks.Lock} view of an {@link
 * EngineLock}. A thread's first lock() takes the distributed lock with an owner of its own; nested
 * lock() calls only count, locally, without a store round trip.
 */
final class ThreadLockView implements ThreadOwnedLock {

  private final EngineLock lock;
  private final ThreadHolds holds;

  ThreadLockView(EngineLock lock, ThreadHolds holds) {
    this.lock = lock;
    this.holds = holds;
  }

  @Override
  public void lock() {
    if (nest()) {
      return;
    }
    EngineLease lease = lock.attemptDeferringInterrupts(EngineLock.FOREVER, owner());
    holds.put(new ThreadHolds.Hold(Objects.requireNonNull(lease)));
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (nest()) {
      return;
    }
    EngineLease lease = lock.attempt(EngineLock.FOREVER, Interrupts.HONOURED, owner());
    holds.put(new ThreadHolds.Hold(Objects.requireNonNull(lease)));
  }

  @Override
  public boolean tryLock() {
    if (nest()) {
      return true;
    }
    return took(lock.attemptDeferringInterrupts(0, owner()));
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit must not be null");
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (nest()) {
      return true;
    }
    // As in java.util.concurrent: a time of zero or less means do not wait.
    long nanos = Math.max(0, unit.toNanos(time));
    if (nanos > dev.locksmith.LockOptions.MAX_WAIT.toNanos()) {
      // Lock.tryLock accepts any time; beyond the longest bounded wait it means "as long as it
      // takes".
      nanos = EngineLock.FOREVER;
    }
    return took(lock.attempt(nanos, Interrupts.HONOURED, owner()));
  }

  private boolean took(@Nullable EngineLease lease) {
    if (lease == null) {
      return false;
    }
    holds.put(new ThreadHolds.Hold(lease));
    return true;
  }

  private boolean nest() {
    ThreadHolds.Hold hold = holds.get();
    if (hold == null) {
      return false;
    }
    hold.count++;
    return true;
  }

  private String owner() {
    return lock.client().newOwner("t" + Thread.currentThread().getId() + "-");
  }

  @Override
  public void unlock() {
    ThreadHolds.Hold hold = holds.get();
    if (hold == null) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + lock.name() + "'");
    }
    if (--hold.count > 0) {
      return;
    }
    holds.remove();
    hold.lease.release();
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return holds.get() != null;
  }

  @Override
  public int getHoldCount() {
    ThreadHolds.Hold hold = holds.get();
    return hold == null ? 0 : hold.count;
  }

  @Override
  public Optional<Lease> currentLease() {
    ThreadHolds.Hold hold = holds.get();
    return hold == null ? Optional.empty() : Optional.of(hold.lease);
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException(
        "a distributed lock cannot offer a Condition: there is no monitor shared across processes"
            + " to wait on; use a lock plus a store-side signal instead");
  }

  @Override
  public String toString() {
    return "ThreadOwnedLock{" + lock.name() + "}";
  }
}
