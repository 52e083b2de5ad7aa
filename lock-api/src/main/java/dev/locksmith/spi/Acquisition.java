package dev.locksmith.spi;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The answer of {@link LockStore#tryAcquire}: either the lock was taken (with its fencing token and
 * the owner's hold count) or it is busy (with an optional hint of how long until it may free up).
 */
public final class Acquisition {

  private static final Acquisition BUSY = new Acquisition(false, 0, 0, null);

  private final boolean acquired;
  private final long token;
  private final int holds;
  private final @Nullable Duration retryAfter;

  private Acquisition(boolean acquired, long token, int holds, @Nullable Duration retryAfter) {
    this.acquired = acquired;
    this.token = token;
    this.holds = holds;
    this.retryAfter = retryAfter;
  }

  /**
   * The lock is held by the caller's owner.
   *
   * @param token the fencing token (strictly increasing across holders; for a nested hold, the
   *     token of the owner's first hold; {@code 0} if the store makes no tokens)
   * @param holds the owner's hold count after this acquire, at least 1
   */
  public static Acquisition acquired(long token, int holds) {
    if (holds < 1) {
      throw new IllegalArgumentException("holds must be at least 1, was " + holds);
    }
    return new Acquisition(true, token, holds, null);
  }

  /** Someone else holds the lock. */
  public static Acquisition busy() {
    return BUSY;
  }

  /**
   * Someone else holds the lock, probably for {@code retryAfter} more (the holder's remaining
   * lease); waiters use it to cap their backoff.
   */
  public static Acquisition busy(@Nullable Duration retryAfter) {
    return retryAfter == null ? BUSY : new Acquisition(false, 0, 0, retryAfter);
  }

  /** Whether the lock was taken. */
  public boolean isAcquired() {
    return acquired;
  }

  /** The fencing token of the hold; meaningful only when acquired. */
  public long token() {
    return token;
  }

  /** The owner's hold count after the acquire; meaningful only when acquired. */
  public int holds() {
    return holds;
  }

  /** The store's hint of how long until the lock may free up, if it gave one. */
  public @Nullable Duration retryAfter() {
    return retryAfter;
  }

  @Override
  public String toString() {
    return acquired
        ? "Acquisition{acquired, token=" + token + ", holds=" + holds + "}"
        : "Acquisition{busy" + (retryAfter != null ? ", retryAfter=" + retryAfter : "") + "}";
  }
}
