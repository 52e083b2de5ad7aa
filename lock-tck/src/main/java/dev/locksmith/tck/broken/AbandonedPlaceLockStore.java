package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.WaitQueue;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a waiter that gives up leaves its place in the queue behind, so every waiter
 * behind it waits for a turn that never comes.
 *
 * <p>It mirrors a queue recipe that deletes its queue node (a ZooKeeper sequential node, a list
 * entry) only on the path where it got the lock: the timeout and interrupt paths forget it, and the
 * node lives as long as the session. It was a real bug of early ZooKeeper lock recipes.
 *
 * <p>Caught by 7.10 (a waiter that gave up leaves the queue), and by every rule in which a waiter
 * gives up while others come after it: an interrupted waiter (7.5), and a writer that gave up,
 * whose place keeps new readers out (8.4).
 */
public final class AbandonedPlaceLockStore extends ForwardingLockStore {

  /** A connection to {@code space} whose waiters queue. */
  public AbandonedPlaceLockStore(MemLockSpace space) {
    super(new MemLockStore(space, "", MemLockStore.Waiters.QUEUE), "broken/abandoned-place");
  }

  @Override
  protected QueuedAttempt enqueue(WaitQueue queue, LockKey key, String owner, Duration leaseTime)
      throws Exception {
    QueuedAttempt place = queue.enqueue(key, owner, leaseTime);
    return new QueuedAttempt() {
      @Override
      public Acquisition poll() throws Exception {
        return place.poll();
      }

      @Override
      public void awaitChange(Runnable signal) throws Exception {
        place.awaitChange(signal);
      }

      @Override
      public void close() {
        // The bug: nothing, unless the place already got the lock.
      }
    };
  }
}
