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
}
