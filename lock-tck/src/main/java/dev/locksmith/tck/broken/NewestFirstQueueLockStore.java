package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.WaitQueue;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.jspecify.annotations.Nullable;

/**
 * BROKEN ON PURPOSE: the store keeps a waiters' queue and declares FAIR_QUEUE, but serves the
 * newest waiter first.
 *
 * <p>It mirrors a queue kept in a Redis list where waiters {@code LPUSH} their id and the one at
 * {@code LINDEX 0} may take the lock (the head is the newest, where {@code RPUSH} was meant), or a
 * ZooKeeper recipe that sorts its sequence numbers the wrong way round. Every waiter still gets the
 * lock in the end while waiters come and go, so nothing looks wrong until someone checks the order.
 *
 * <p>Caught by 7.9 (waiters that queued one after another get the lock in that order), and by the
 * read-write rules in which readers keep arriving while a writer waits (8.3, 8.6): the newest
 * waiter first starves the oldest.
 */
public final class NewestFirstQueueLockStore extends ForwardingLockStore {

  // The lists every connection to one space shares, as lists kept in the server would be.
  private static final Map<String, Deque<String>> QUEUES = new ConcurrentHashMap<>();

  private final String space;

  /** A connection to {@code space}. */
  public NewestFirstQueueLockStore(MemLockSpace space) {
    super(space, "broken/newest-first-queue");
    this.space = space.name();
  }

  @Override
  public Optional<WaitQueue> waitQueue() {
    return Optional.of(this::enqueue);
  }

  private QueuedAttempt enqueue(LockKey key, String owner, Duration leaseTime) {
    String list = space + (key.mode() == LockMode.EXCLUSIVE ? "|x:" : "|rw:") + key.name();
    Deque<String> queue = QUEUES.computeIfAbsent(list, k -> new ConcurrentLinkedDeque<>());
    queue.addFirst(owner); // The bug: LPUSH, so the head is the newest waiter.
    return new QueuedAttempt() {
      private boolean done;
      private @Nullable AutoCloseable watch;

      @Override
      public Acquisition poll() throws Exception {
        if (done || !owner.equals(queue.peekFirst())) {
          return Acquisition.busy();
        }
        Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
        if (a.isAcquired()) {
          done = true;
          queue.remove(owner);
          stopWatching(); // The engine closes only places that did not acquire.
        }
        return a;
      }

      @Override
      public void awaitChange(Runnable signal) throws Exception {
        if (watch == null) {
          watch = delegate.releasePush().orElseThrow().onRelease(key, signal);
        }
      }

      @Override
      public void close() throws Exception {
        if (!done) {
          done = true;
          queue.remove(owner);
          delegate
              .readWrite()
              .orElseThrow()
              .withdraw(key, owner); // A writer's polls may have marked it waiting.
        }
        stopWatching();
      }

      private void stopWatching() {
        if (watch != null) {
          try {
            watch.close();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          watch = null;
        }
      }
    };
  }
}
