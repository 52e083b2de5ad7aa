package dev.locksmith;

import java.time.Duration;

/**
 * Told what a {@link LockClient}'s engine does: how each acquire ended and how long it took, how
 * each renewal went, and when a lease is lost or ends. For metrics, tracing and audit logs; set it
 * with {@link LockOptions.Builder#observer(LockObserver)}.
 *
 * <p>Every method has a no-op default, so an observer implements only what it needs. Calls are made
 * on the thread that did the work (the caller's thread for acquires, the client's watchdog threads
 * for renewals and losses) right after it happened, and must return quickly and not call back into
 * the lock that is being reported. An observer that throws is logged at WARN and ignored: it can
 * never make an acquire, a renewal or a release fail. {@code store} is the store's description
 * ({@link dev.locksmith.spi.LockStore#describe()}: its kind, and for a store reached over the
 * network its address without credentials, such as {@code "redis://10.0.0.5:6379"} or {@code
 * "jdbc/h2"}), one value per store; lock names may have high cardinality (order ids). The Spring
 * Boot starter tags its meters with the kind alone.
 */
public interface LockObserver {

  /** The observer that ignores everything: the default. */
  LockObserver NONE = new LockObserver() {};

  /** How an acquire call ended. */
  enum AcquireOutcome {
    /** A lease was returned. */
    ACQUIRED,
    /** The lock was taken and the caller did not wait ({@code tryAcquire()} returned empty). */
    BUSY,
    /** The caller waited and the lock was still taken when the wait ran out. */
    TIMEOUT,
    /** The thread was interrupted while waiting; nothing is held. */
    INTERRUPTED,
    /** The store failed ({@link LockStoreException}); nothing is held. */
    ERROR
  }

  /** How one renewal by the client's watchdog ended. */
  enum RenewalOutcome {
    /** The store extended the lease. */
    RENEWED,
    /** The store no longer held the lock for this owner: the lease is lost. */
    LOST,
    /** The store failed; the watchdog retries until the lease would run out. */
    FAILED
  }

  /**
   * An acquire call on lock {@code lockName} ended with {@code outcome} after {@code took}. Called
   * once per call of {@code tryAcquire}, {@code acquire}, a thread view's {@code lock}/{@code
   * tryLock}, and once per lock a multi-lock takes.
   */
  default void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {}

  /** One renewal of a lease on {@code lockName} ended with {@code outcome} after {@code took}. */
  default void renewalEnded(String store, String lockName, RenewalOutcome outcome, Duration took) {}

  /**
   * {@code lease} was lost (expired, renewal found it gone, session ended); called once per lost
   * lease, before the lease's own {@link Lease#onLost} listeners.
   */
  default void leaseLost(String store, Lease lease, LeaseLostException reason) {}

  /**
   * The client stopped tracking {@code lease}: it was released, lost, or handed to the store with
   * {@link Lease#releaseHeldAtLeast}. Called once per lease that was {@link
   * AcquireOutcome#ACQUIRED}, so that acquired minus ended is the number of leases held.
   */
  default void leaseEnded(String store, Lease lease) {}
}
