package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.tck.broken.LockTable.LockRow;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: an owner whose own hold expired (and was not taken over) acquires again and
 * gets a nested hold on the dead row: two holds, the old token.
 *
 * <p>It mirrors the one-statement acquire {@code UPDATE locks SET holds = CASE WHEN owner = ? THEN
 * holds + 1 ELSE 1 END, … WHERE name = ? AND (expires_at < now() OR owner = ?)}: the {@code owner =
 * ?} branch is taken before the expiry is looked at. The owner's next release only decrements, so
 * the lock stays held (by nobody who knows it) until the new lease runs out, and the token did not
 * rise across what was really a new hold.
 *
 * <p>The kit must fail it on "an owner that acquires again after its own hold expired gets a fresh
 * hold" (12.5).
 */
public final class NestsOnExpiredRowLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public NestsOnExpiredRowLockStore(LockTable table) {
    super(table, "broken/nests-on-expired-row");
  }

  @Override
  Acquisition acquireRow(LockRow row, String owner, long leaseNanos, long now) {
    // The bug: "the owner's row" is checked before "a live row".
    if (owner.equals(row.owner)) {
      row.holds++;
      row.expiresAt = now + leaseNanos;
      return Acquisition.acquired(row.version, row.holds);
    }
    if (isHeld(row, now)) {
      return Acquisition.busy(Duration.ofNanos(row.expiresAt - now));
    }
    row.owner = owner;
    row.holds = 1;
    row.version = newToken(row);
    row.expiresAt = now + leaseNanos;
    return Acquisition.acquired(row.version, 1);
  }
}
