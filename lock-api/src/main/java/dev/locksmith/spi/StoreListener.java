package dev.locksmith.spi;

/**
 * How a store with sessions (ZooKeeper) tells the engine about events it learns on its own, without
 * being asked: a hold that the store dropped, and a connection that was suspended or came back.
 *
 * <p>The engine registers one listener per store with {@link SessionEvents#listen}. Calls may come
 * from any thread and must not be made while holding a store lock that the engine might need.
 */
public interface StoreListener {

  /** The store dropped every hold of {@code owner} on {@code key}. */
  void holdLost(LockKey key, String owner, String reason);

  /** The store connection is suspended: holds may or may not survive. */
  void suspended();

  /** The store connection came back within its session: holds survived. */
  void resumed();

  /** The store session ended: every hold of this store is gone. */
  void sessionLost(String reason);
}
