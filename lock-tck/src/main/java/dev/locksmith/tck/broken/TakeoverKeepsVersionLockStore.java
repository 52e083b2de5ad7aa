package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.tck.broken.LockTable.LockRow;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: the fencing token (the row's version) rises when a released lock is taken, but
 * not when an expired one is taken over: the new holder gets the expired holder's token.
 *
 * <p>It mirrors a JDBC store with two statements, {@code UPDATE … SET owner = ?, version = version
 * + 1 WHERE owner IS NULL} for a free row and {@code UPDATE … SET owner = ?, expires_at = ? WHERE
 * expires_at < now()} for an expired one, the second without {@code version = version + 1}. A
 * takeover is exactly when fencing matters: the paused old holder's writes carry the same token as
 * the new holder's and are accepted.
 *
 * <p>The kit must fail it on "a holder that took over an expired lock gets a greater token" (5.2)
 * and on "an owner that acquires again after its own hold expired gets a greater token" (12.5).
 */
public final class TakeoverKeepsVersionLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public TakeoverKeepsVersionLockStore(LockTable table) {
    super(table, "broken/takeover-keeps-version");
  }

  @Override
  Acquisition acquireRow(LockRow row, String owner, long leaseNanos, long now) {
    if (isHeld(row, now)) {
      if (owner.equals(row.owner)) {
        row.holds++;
        row.expiresAt = now + leaseNanos;
        return Acquisition.acquired(row.version, row.holds);
      }
      return Acquisition.busy(Duration.ofNanos(row.expiresAt - now));
    }
    if (row.owner == null) {
      row.version = newToken(row); // The bug: only a new row gets a token; a takeover does not.
    }
    row.owner = owner;
    row.holds = 1;
    row.expiresAt = now + leaseNanos;
    return Acquisition.acquired(row.version, 1);
  }
}
