package dev.locksmith;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The {@link Lock} view of a {@link DistributedLock}: held by a thread, reentrant per thread, like
 * {@link java.util.concurrent.locks.ReentrantLock} but across processes.
 *
 * <p>The first {@code lock()} of a thread acquires the distributed lock with an owner unique to the
 * client and thread; nested calls only count. {@link #unlock()} by a thread that does not hold it
 * throws {@link IllegalMonitorStateException}; an {@code unlock()} that finds the underlying lease
 * lost throws {@link LeaseLostException} after clearing the thread's hold. {@link #lock()} waits
 * without being interruptible, as the interface requires, and throws {@link LockStoreException} if
 * the store fails. {@link #newCondition()} is refused: a distributed lock has no monitor to wait
 * on.
 */
public interface ThreadOwnedLock extends Lock {

  /** Whether the calling thread holds this lock. */
  boolean isHeldByCurrentThread();

  /** How many nested holds the calling thread has (zero if none). */
  int getHoldCount();

  /** The current thread's lease, if it holds the lock: to read its fencing token or expiry. */
  java.util.Optional<Lease> currentLease();

  /**
   * Always throws {@link UnsupportedOperationException}: a distributed lock cannot offer a
   * condition.
   */
  @Override
  Condition newCondition();
}
