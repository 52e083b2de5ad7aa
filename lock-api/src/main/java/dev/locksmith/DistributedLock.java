package dev.locksmith;

import java.time.Duration;
import java.util.Optional;

/**
 * A named lock in a store, shared by every process that uses the same name on the same store.
 *
 * <p>Each successful acquire returns a {@link Lease}; the lease, not the calling thread, holds the
 * lock. By default every acquire is a new owner, so two acquires from one process exclude each
 * other like two processes do. {@link #withOwner(String)} names the owner instead, so the same
 * owner acquiring again gets a nested hold (reentrancy), and {@link #asLock()} gives the
 * thread-owned, reentrant {@link java.util.concurrent.locks.Lock} view.
 *
 * <p>Instances are immutable and thread-safe; the {@code with…} methods return configured copies.
 * Every method that talks to the store throws {@link LockStoreException} when the store fails and
 * never reports an acquire that did not happen.
 */
public interface DistributedLock {

  /** The lock's name. */
  String name();

  /**
   * Tries once to acquire the lock and never waits for it to be released.
   *
   * @return the lease, or empty if someone else holds the lock
   * @throws LockStoreException if the store failed (nothing is held)
   */
  Optional<Lease> tryAcquire();

  /**
   * Waits at most {@code wait} for the lock.
   *
   * @return the lease, or empty if the lock was still taken when the wait ran out
   * @throws IllegalArgumentException if {@code wait} is negative or longer than {@link
   *     LockOptions#MAX_WAIT}
   * @throws InterruptedException if the thread was interrupted while waiting; nothing is held and
   *     no renewal is left running
   * @throws LockStoreException if the store failed (nothing is held)
   */
  Optional<Lease> tryAcquire(Duration wait) throws InterruptedException;

  /**
   * Waits for as long as it takes to acquire the lock.
   *
   * @throws InterruptedException if the thread was interrupted while waiting; nothing is held
   * @throws LockStoreException if the store failed (nothing is held)
   */
  Lease acquire() throws InterruptedException;

  /**
   * Waits at most {@code wait} for the lock.
   *
   * @throws LockTimeoutException if the lock was still taken when the wait ran out
   * @throws IllegalArgumentException if {@code wait} is negative or longer than {@link
   *     LockOptions#MAX_WAIT}
   * @throws InterruptedException if the thread was interrupted while waiting; nothing is held
   * @throws LockStoreException if the store failed (nothing is held)
   */
  Lease acquire(Duration wait) throws InterruptedException;

  /**
   * Whether anyone holds the lock right now, as the store sees it. The answer may be stale by the
   * time it is used; it is for monitoring, not for deciding to skip an acquire.
   */
  boolean isLocked();

  /**
   * A copy whose leases last {@code leaseTime} (renewed or not, see {@link #withAutoRenew}).
   *
   * @throws IllegalArgumentException if {@code leaseTime} is not positive, is shorter than the
   *     store's minimum lease or longer than {@link LockOptions#MAX_LEASE_TIME}
   */
  DistributedLock withLeaseTime(Duration leaseTime);

  /** A copy whose leases are (or are not) renewed by the client's watchdog while held. */
  DistributedLock withAutoRenew(boolean autoRenew);

  /**
   * A copy that acquires as {@code owner}: the same owner acquiring again, from this or any other
   * client, gets a nested hold, and the lock frees when every hold is released.
   *
   * @throws IllegalArgumentException if {@code owner} is blank, longer than 128 UTF-8 bytes or has
   *     control characters
   * @throws UnsupportedCapabilityException if the store lacks {@link Capability#REENTRANCY}
   */
  DistributedLock withOwner(String owner);

  /**
   * The {@link java.util.concurrent.locks.Lock} view of this lock: owned by the calling thread and
   * reentrant per thread, for code written against the JDK interface. All views of one name from
   * one client share their bookkeeping.
   */
  ThreadOwnedLock asLock();
}
