package dev.locksmith.spi;

/**
 * A place in a store-kept queue of waiters (a ZooKeeper sequential node), for stores that serve
 * waiters in order ({@code Capability.FAIR_QUEUE}), handed out by {@link WaitQueue#enqueue}.
 *
 * <p>The engine still owns the wait: it calls {@link #poll()} until the attempt is acquired, waits
 * for {@link #awaitChange}'s signal (or its own timeout) in between, and {@link #close()}s the
 * attempt if it gives up, which must remove the place from the queue.
 */
public interface QueuedAttempt extends AutoCloseable {

  /** Whether the attempt's turn has come; if so the lock is held and the attempt is done. */
  Acquisition poll() throws Exception;

  /**
   * Arranges for {@code signal} to run once when the queue changes in a way that may make {@link
   * #poll()} succeed (the predecessor left).
   */
  void awaitChange(Runnable signal) throws Exception;

  /** Leaves the queue if the attempt did not acquire; does nothing after a successful poll. */
  @Override
  void close() throws Exception;
}
