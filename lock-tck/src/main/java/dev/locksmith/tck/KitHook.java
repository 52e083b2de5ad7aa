package dev.locksmith.tck;

/** The optional hooks of {@link LockStoreContract} that some rules need. */
public enum KitHook {
  /** {@link LockStoreContract#faults()}: the store can be paused, killed and restarted. */
  FAULTS,
  /** {@link LockStoreContract#outsideActor()}: holds can be deleted behind the clients' backs. */
  OUTSIDE_ACTOR,
  /** {@link LockStoreContract#storeUri()}: another process can open the store by URI. */
  STORE_URI,
  /** {@link LockStoreContract#links()}: one client's network path to the store can be cut. */
  LINKS,
  /**
   * {@link LockStoreContract#inspector()}: the store's entries can be counted and its idle state
   * dropped behind the clients' backs.
   */
  INSPECTOR,
  /**
   * The clients are the engine's ({@code LockClient.open} or {@code LockClient.of}), so the kit can
   * reach their store, count their timers and wrap their store with faults.
   */
  ENGINE_CLIENT
}
