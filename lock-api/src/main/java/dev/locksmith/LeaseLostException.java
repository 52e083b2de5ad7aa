package dev.locksmith;

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

  private final String lockName;
  private final String reason;

  /** Creates an exception for the lock {@code lockName} whose lease ended for {@code reason}. */
  public LeaseLostException(String lockName, String reason) {
    super("lease on lock '" + lockName + "' was lost: " + reason);
    this.lockName = lockName;
    this.reason = reason;
  }

  /** Creates an exception for a loss that was caused by a store failure. */
  public LeaseLostException(String lockName, String reason, Throwable cause) {
    super("lease on lock '" + lockName + "' was lost: " + reason, cause);
    this.lockName = lockName;
    this.reason = reason;
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
