package dev.locksmith;

/**
 * A promise that only some stores can keep; {@link LockClient#capabilities()} says which ones a
 * store keeps.
 *
 * <p>Every store keeps the core promises (mutual exclusion, owner-checked release, no deadlock,
 * bounded waiting, input checks, store-failure reporting). The features below depend on what the
 * store can do; using one a store lacks throws {@link UnsupportedCapabilityException}.
 */
public enum Capability {
  /**
   * {@link Lease#fencingToken()} strictly increases across successive holders of a name while the
   * store keeps running.
   */
  FENCING,
  /** Fencing tokens keep increasing across a restart of the store (the counter is durable). */
  DURABLE_FENCING,
  /**
   * An owner given with {@link DistributedLock#withOwner(String)} may acquire a lock it already
   * holds and get a nested hold; the lock frees when every hold is released.
   */
  REENTRANCY,
  /** {@link LockClient#readWriteLock(String)}: many readers or one writer, writers not starved. */
  READ_WRITE,
  /** The store tells waiters when a lock is released, so they do not have to poll. */
  WAKE_ON_RELEASE,
  /** Waiters are served in the order they asked (a fair queue kept by the store). */
  FAIR_QUEUE,
  /**
   * Holds are bound to the client's store session instead of a lease time: the lock is held until
   * release or until the session ends, and {@link Lease#expiresAt()} is {@link
   * java.time.Instant#MAX}. Leases are still told of loss through {@link Lease#onLost}.
   */
  SESSION_BOUND
}
