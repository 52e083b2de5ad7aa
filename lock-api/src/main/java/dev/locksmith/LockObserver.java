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

  /**
   * How an operation ended: an {@link AcquireOutcome}, {@link RenewalOutcome} or {@link
   * ReleaseOutcome}.
   */
  sealed interface Outcome permits AcquireOutcome, RenewalOutcome, ReleaseOutcome {}

  /** How an acquire call ended. */
  enum AcquireOutcome implements Outcome {
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
  enum RenewalOutcome implements Outcome {
    /** The store extended the lease. */
    RENEWED,
    /** The store no longer held the lock for this owner: the lease is lost. */
    LOST,
    /** The store failed; the watchdog retries until the lease would run out. */
    FAILED
  }

  /** How a release by the holder ended. */
  enum ReleaseOutcome implements Outcome {
    /** The store released the hold. */
    RELEASED,
    /**
     * The lease was already lost, or the store no longer held it for this owner: the release threw
     * {@link LeaseLostException}.
     */
    LOST,
    /** The store failed ({@link LockStoreException}); the client keeps asking in the background. */
    ERROR
  }

  /** The operations the engine reports through {@link #started}. */
  enum Operation {
    /** An acquire call, from its first store call to its return (waiting included). */
    ACQUIRE,
    /** One renewal of one lease by the client's watchdog. */
    RENEWAL,
    /** A release of a lease by its holder ({@link Lease#release()}, {@link Lease#close()}). */
    RELEASE
  }

  /**
   * One operation in progress, for tracing: the engine calls {@link #ended} exactly once, on the
   * thread that {@linkplain #started started} it, after the operation's other observer calls
   * ({@link #acquireEnded}, {@link #renewalEnded}, {@link #leaseEnded}).
   */
  @FunctionalInterface
  interface Span {
    /** The span that ignores its end. */
    Span NONE = outcome -> {};

    /** The operation ended with {@code outcome}. */
    void ended(Outcome outcome);
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

  /**
   * The engine starts {@code operation} on lock {@code lockName}; the span it returns is ended when
   * the operation ends. An acquire's span is started and ended on the caller's thread with nothing
   * of another lock in between, so a tracer may make it the current span (the store driver's calls
   * then nest under it); renewals are batched on the watchdog's thread, so their spans overlap and
   * must not be made current.
   */
  default Span started(Operation operation, String store, String lockName) {
    return Span.NONE;
  }

  /**
   * An acquire on {@code lockName} found the lock taken and is about to wait for it: every call is
   * followed by one {@link #waitEnded}, so that started minus ended is the number of waiters.
   */
  default void waitStarted(String store, String lockName) {}

  /**
   * A wait that {@link #waitStarted} reported ended with {@code outcome} after {@code waited}: for
   * {@link AcquireOutcome#ACQUIRED}, the hand-off time from the moment the lock was found taken.
   */
  default void waitEnded(String store, String lockName, AcquireOutcome outcome, Duration waited) {}

  /**
   * The watchdog is sending a due renewal of a lease on {@code lockName} {@code late} after it was
   * due (zero when on time); {@code leaseTime} is the lease it renews, so {@code late / leaseTime}
   * is the renewal lag. Renewals are due at a third of the lease: a lag near two thirds means the
   * lease is about to run out before the store hears from the holder.
   */
  default void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {}

  /**
   * A lease on {@code lockName} with a deadline (not a session-bound one) is being released by its
   * holder with {@code remaining} of its {@code leaseTime} left on the client's clock: the safety
   * margin by which the critical section beat the lease.
   */
  default void releasedWithMargin(
      String store, String lockName, Duration remaining, Duration leaseTime) {}
}
