package dev.locksmith;

/**
 * The store could not be reached or failed to answer, so the outcome of the operation is not known
 * to have succeeded.
 *
 * <p>An acquire that meets this exception never reports success: the caller holds nothing. Leases
 * that were already held keep their own state: their renewal retries until the lease would expire
 * and then reports the loss through {@link Lease#onLost}. A client recovers by itself once the
 * store is back; there is nothing to reopen. The cause is the store driver's own exception.
 */
public class LockStoreException extends LockException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception that names the operation and the store failure that stopped it. */
  public LockStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates an exception for a store failure that has no underlying exception. */
  public LockStoreException(String message) {
    super(message);
  }
}
