package dev.locksmith;

import java.util.Objects;

/**
 * A lease ended without being released by its holder: it expired, its renewal failed, the store
 * gave the lock to someone else, or the store session that held it ended.
 *
 * <p>It is thrown by {@link Lease#release()}, {@link Lease#close()} and {@link Lease#extend} on a
 * lease that was lost, so that a critical section that outlived its lease never ends silently, and
 * it is handed to the listeners registered with {@link Lease#onLost}. Whatever the holder did after
 * the moment of loss was not protected by the lock; a {@link Lease#fencingToken() fencing token}
 * lets the protected resource refuse such late writes.
 */
public class LeaseLostException extends LockException {
  private static final long serialVersionUID = 1L;

  /** What ended the lease: the tag operators count losses by. */
  public enum Kind {
    /** It ran out on the client's clock: not extended in time, or renewals came too late. */
    EXPIRED,
    /** Renewals failed (the store did not answer) until the lease ran out. */
    RENEWAL_FAILED,
    /**
     * The store answered that it no longer holds the lock for this owner (at a renewal, an extend,
     * a release, or by an event): it expired there, was deleted, or was taken.
     */
    NOT_HELD,
    /** The store session that held it ended (ZooKeeper's session expired or was closed). */
    SESSION_LOST
  }

  private final String lockName;
  private final Kind kind;
  private final String reason;

  /**
   * Creates an exception for the lock {@code lockName} whose lease ended for {@code reason}.
   *
   * @throws NullPointerException if an argument is null
   */
  public LeaseLostException(String lockName, Kind kind, String reason) {
    super("lease on lock '" + lockName + "' was lost: " + reason);
    this.lockName = lockName;
    this.kind = Objects.requireNonNull(kind, "kind must not be null");
    this.reason = Objects.requireNonNull(reason, "reason must not be null");
  }

  /**
   * Creates an exception for a loss that was caused by a store failure.
   *
   * @throws NullPointerException if an argument is null
   */
  public LeaseLostException(String lockName, Kind kind, String reason, Throwable cause) {
    super("lease on lock '" + lockName + "' was lost: " + reason, cause);
    this.lockName = lockName;
    this.kind = Objects.requireNonNull(kind, "kind must not be null");
    this.reason = Objects.requireNonNull(reason, "reason must not be null");
  }

  /** What ended the lease. */
  public Kind kind() {
    return kind;
  }

  /** Why the lease ended, without the lock name. */
  public String reason() {
    return reason;
  }

  /** The name of the lock whose lease was lost. */
  public String lockName() {
    return lockName;
  }
}
