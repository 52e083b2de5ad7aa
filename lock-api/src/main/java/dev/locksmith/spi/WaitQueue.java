package dev.locksmith.spi;

import java.time.Duration;

/**
 * The part of a {@link LockStore} that keeps a queue of waiters per lock (a ZooKeeper sequential
 * node): a store that provides it declares {@code Capability.FAIR_QUEUE}, and the engine waits
 * through the queue instead of polling {@link LockStore#tryAcquire}.
 */
@FunctionalInterface
public interface WaitQueue {

  /**
   * Joins the queue of waiters for {@code key} as {@code owner}; the lock is held once {@link
   * QueuedAttempt#poll()} says so. May be interrupted mid-call; the engine then undoes it.
   */
  QueuedAttempt enqueue(LockKey key, String owner, Duration leaseTime) throws Exception;
}
