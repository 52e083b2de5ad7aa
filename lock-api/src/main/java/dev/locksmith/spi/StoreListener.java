package dev.locksmith.spi;

/**
 * How a store with sessions (ZooKeeper) tells the engine about events it learns on its own, without
 * being asked: a hold that the store dropped, and a connection that was suspended or came back.
 *
 * <p>The engine registers one listener per store with {@link SessionEvents#listen}. Calls may come
 * from any thread and must not be made while holding a store lock that the engine might need.
 */
public interface StoreListener {

  /**
   * The store dropped the hold of {@code owner} on {@code key} that carries {@code token} (the
   * token its {@link Acquisition} answered, {@code 0} from a store without fencing), nested holds
   * on it included. The token names the hold, so that a report that arrives late can never end a
   * newer hold of the same owner on the same key: the engine ends only leases of that hold.
   */
  void holdLost(LockKey key, String owner, long token, String reason);

  /** The store connection is suspended: holds may or may not survive. */
  void suspended();

  /** The store connection came back within its session: holds survived. */
  void resumed();

  /** The store session ended: every hold of this store is gone. */
  void sessionLost(String reason);
}
