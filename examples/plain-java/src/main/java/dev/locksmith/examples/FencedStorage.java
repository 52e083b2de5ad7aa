package dev.locksmith.examples;

/**
 * The tiny resource the examples protect: one value, written only with a fencing token at least as
 * high as every token it has seen.
 *
 * <p>A lock alone cannot stop a holder that was paused (a long GC, a slow disk) past its lease from
 * writing after someone else took the lock. The resource can: the new holder's token is higher, so
 * the late write's lower token is refused. In a real system this check lives in the database or
 * service that is written to (a {@code WHERE token <= ?} condition, a version column).
 */
public final class FencedStorage {

  /** Thrown for a write whose token is lower than one the storage has already accepted. */
  public static final class StaleTokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleTokenException(long token, long highest) {
      super("token " + token + " is stale: a write with token " + highest + " was accepted");
    }
  }

  private long highestToken = Long.MIN_VALUE;
  private String value = "";

  /**
   * Stores {@code newValue} if {@code token} is not lower than any token accepted before.
   *
   * @throws StaleTokenException if a higher token was accepted before
   */
  public synchronized void write(String newValue, long token) {
    if (token < highestToken) {
      throw new StaleTokenException(token, highestToken);
    }
    highestToken = token;
    value = newValue;
  }

  /** The last value accepted. */
  public synchronized String value() {
    return value;
  }
}
