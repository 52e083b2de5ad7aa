package dev.locksmith;

/**
 * The base of every exception Locksmith throws for a lock that could not be taken, kept or given
 * back.
 *
 * <p>It is unchecked so that locking code stays readable; the subclasses say what went wrong:
 * {@link LockStoreException} (the store failed), {@link LockTimeoutException} (the wait ran out),
 * {@link LeaseLostException} (a held lease ended before it was released), {@link
 * UnsupportedCapabilityException} (the store cannot do that) and {@link
 * UnsupportedLockUriException} (no provider for that URI) and {@link StaleTokenException} (a
 * token-checked resource refused a stale write). Bad arguments are reported with the JDK's {@link
 * IllegalArgumentException} and {@link NullPointerException}, not with this type.
 */
public class LockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message that says what failed. */
  public LockException(String message) {
    super(message);
  }

  /** Creates an exception with a message that says what failed and the failure that caused it. */
  public LockException(String message, Throwable cause) {
    super(message, cause);
  }
}
