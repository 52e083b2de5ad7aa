package dev.locksmith.spi;

/**
 * The part of a {@link LockStore} whose holds are bound to its session (ZooKeeper) rather than a
 * lease time: a store that provides it declares {@code Capability.SESSION_BOUND}.
 *
 * <p>Such a store ignores lease times, and must tell the engine everything it learns on its own
 * about holds: a dropped hold, a suspended or resumed connection, a lost session. Without that a
 * holder would never hear that its lock is gone.
 */
@FunctionalInterface
public interface SessionEvents {

  /** Registers the engine's one listener; events may arrive on any thread from then on. */
  void listen(StoreListener listener);

  /**
   * Whether the store can still count on its session at {@code nanoTime} (a {@link
   * System#nanoTime()} reading), judged from what it last heard from its server rather than from
   * events: the engine asks this in {@code Lease.isValid()} of every hold of this store.
   *
   * <p>Events come late after the holder's own process was stopped (a long GC pause, {@code
   * SIGSTOP}): the server ended the session meanwhile, but the client learns of it only after it
   * runs again and reads the socket, so a holder asking first would be told its lease is valid. A
   * store that knows when its server last answered it within the session answers {@code false} once
   * the session timeout has passed since the request of that answer was sent: the server keeps a
   * session at most that long without hearing from its client. The default trusts the session until
   * an event says otherwise.
   *
   * <p>Called often and from any thread: it must return at once, without asking the server.
   */
  default boolean trustedAt(long nanoTime) {
    return true;
  }
}
