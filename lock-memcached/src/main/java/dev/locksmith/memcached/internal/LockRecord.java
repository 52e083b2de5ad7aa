package dev.locksmith.memcached.internal;

import java.util.Objects;

/**
 * The value of a lock item: who holds it, how many nested holds, its fencing token and the lease
 * (in whole seconds of memcached expiry) it was last given.
 *
 * <p>Text form: {@code L1 <token|?> <holds> <leaseSeconds> <owner>}. The owner comes last so it may
 * contain spaces. A token of {@code ?} marks a hold whose token is still being drawn: the {@code
 * add} that took the lock came first, the counter {@code incr} second, so that tokens are drawn
 * only by holders, in the order they held.
 *
 * @param token the fencing token, or {@link #PENDING} while it is being drawn
 * @param holds the owner's nested hold count, at least 1
 * @param leaseSeconds the memcached expiry last set on the item
 * @param owner the holder's owner id
 */
public record LockRecord(long token, int holds, int leaseSeconds, String owner) {

  /** The token of a record whose token is not drawn yet. */
  public static final long PENDING = -1;

  private static final String MAGIC = "L1";

  /** Checks the fields. */
  public LockRecord {
    Objects.requireNonNull(owner, "owner");
    if (holds < 1) {
      throw new IllegalArgumentException("holds must be at least 1, was " + holds);
    }
    if (token < PENDING) {
      throw new IllegalArgumentException("token must not be negative, was " + token);
    }
  }

  /** Whether the token is still being drawn. */
  public boolean pending() {
    return token == PENDING;
  }

  /** This record with {@code token}. */
  public LockRecord withToken(long newToken) {
    return new LockRecord(newToken, holds, leaseSeconds, owner);
  }

  /** This record with {@code newHolds} nested holds and a lease of {@code newLeaseSeconds}. */
  public LockRecord with(int newHolds, int newLeaseSeconds) {
    return new LockRecord(token, newHolds, newLeaseSeconds, owner);
  }

  /** The text stored in memcached. */
  public String encode() {
    return MAGIC
        + ' '
        + (pending() ? "?" : Long.toString(token))
        + ' '
        + holds
        + ' '
        + leaseSeconds
        + ' '
        + owner;
  }

  /**
   * Parses a stored value.
   *
   * @throws IllegalArgumentException if {@code text} is not a lock record (another program wrote to
   *     the key)
   */
  public static LockRecord decode(String text) {
    String[] parts = text.split(" ", 5);
    if (parts.length != 5 || !parts[0].equals(MAGIC)) {
      throw new IllegalArgumentException("not a Locksmith lock record: '" + abbreviate(text) + "'");
    }
    try {
      long token = parts[1].equals("?") ? PENDING : Long.parseLong(parts[1]);
      return new LockRecord(
          token, Integer.parseInt(parts[2]), Integer.parseInt(parts[3]), parts[4]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "not a Locksmith lock record: '" + abbreviate(text) + "' (" + e.getMessage() + ")", e);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
