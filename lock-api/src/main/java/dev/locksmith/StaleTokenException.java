package dev.locksmith;

import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A token-checked resource refused a write because its fencing token is lower than one the resource
 * already accepted: a newer holder of the lock has written since, so the holder of this token lost
 * its lease (it expired during a pause, its renewal failed) and must not overwrite the newer data.
 *
 * <p>Nothing was written. The exception is final for this token: retrying with the same token is
 * refused again; the caller has to acquire the lock anew (getting a higher token) and read the
 * resource again before it writes. A resource that could not be reached throws {@link
 * LockStoreException} instead, never this type, so a refusal is always a verdict of the resource.
 * Tokens come from {@link Lease#fencingToken()}; a resource accepts a token equal to the highest it
 * accepted, so one holder may write several times.
 */
public class StaleTokenException extends LockException {
  private static final long serialVersionUID = 1L;

  private final String resource;
  private final long offeredToken;
  private final @Nullable Long highestAccepted;

  /**
   * Creates an exception for a write to {@code resource} with {@code offeredToken} that was refused
   * because the resource already accepted {@code highestAccepted} (null if the resource could not
   * tell, for example because it was changed again meanwhile).
   *
   * @throws NullPointerException if {@code resource} is null
   */
  public StaleTokenException(String resource, long offeredToken, @Nullable Long highestAccepted) {
    super(message(resource, offeredToken, highestAccepted));
    this.resource = resource;
    this.offeredToken = offeredToken;
    this.highestAccepted = highestAccepted;
  }

  private static String message(String resource, long offered, @Nullable Long highest) {
    Objects.requireNonNull(resource, "resource must not be null");
    return "write to "
        + resource
        + " refused: fencing token "
        + offered
        + " is lower than "
        + (highest == null ? "a token" : "token " + highest)
        + " the resource already accepted (a newer lock holder has written; the lease of token "
        + offered
        + " has ended)";
  }

  /** The resource that refused the write, as the resource names itself (table and row, key). */
  public String resource() {
    return resource;
  }

  /** The fencing token the refused write carried. */
  public long offeredToken() {
    return offeredToken;
  }

  /**
   * The highest token the resource had accepted when it refused the write, if it could tell; it is
   * greater than {@link #offeredToken()}.
   */
  public OptionalLong highestAccepted() {
    return highestAccepted == null ? OptionalLong.empty() : OptionalLong.of(highestAccepted);
  }
}
