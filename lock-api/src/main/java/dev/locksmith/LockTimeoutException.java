package dev.locksmith;

import java.time.Duration;

/**
 * A blocking acquire waited as long as it was allowed to and the lock was still held by someone
 * else.
 *
 * <p>The caller holds nothing: no lease, no renewal, no queue entry is left behind in the store.
 */
public class LockTimeoutException extends LockException {
  private static final long serialVersionUID = 1L;

  private final String lockName;
  private final Duration waited;

  /** Creates an exception for the lock {@code lockName} after waiting {@code waited}. */
  public LockTimeoutException(String lockName, Duration waited) {
    super("timed out after " + waited.toMillis() + " ms waiting for lock '" + lockName + "'");
    this.lockName = lockName;
    this.waited = waited;
  }

  /** The name of the lock that could not be taken. */
  public String lockName() {
    return lockName;
  }

  /** How long the caller asked to wait. */
  public Duration waited() {
    return waited;
  }
}
