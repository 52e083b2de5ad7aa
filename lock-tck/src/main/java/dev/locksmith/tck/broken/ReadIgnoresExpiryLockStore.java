package dev.locksmith.tck.broken;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.tck.broken.LockTable.LockRow;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: {@code read()} reports a lock as held while its row names an owner, though the
 * owner's lease ran out.
 *
 * <p>It mirrors {@code SELECT owner, holds, expires_at FROM locks WHERE name = ? AND owner IS NOT
 * NULL} without {@code AND expires_at > now()}: acquire and release judge expiry, the status query
 * was written separately and does not. {@code isLocked()}, dashboards and health checks show dead
 * holders as holding.
 *
 * <p>The kit must fail it on "read() after expiry" in "release and extend by an owner whose hold
 * expired with no takeover" (12.3).
 */
public final class ReadIgnoresExpiryLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public ReadIgnoresExpiryLockStore(LockTable table) {
    super(table, "broken/read-ignores-expiry");
  }

  @Override
  public LockState read(LockKey key) {
    checkOpen();
    return table.transaction(
        () -> {
          long now = table.now();
          // The bug: a row with an owner is "held", whatever its expires_at says.
          LockRow row =
              table.lockRow(
                  kindOf(key.mode() == LockMode.EXCLUSIVE ? LockMode.EXCLUSIVE : LockMode.WRITE),
                  key.name());
          if (row != null && row.owner != null) {
            return new LockState(
                true, row.owner, row.holds, Duration.ofNanos(Math.max(0, row.expiresAt - now)));
          }
          int readers = key.mode() == LockMode.EXCLUSIVE ? 0 : table.readers(key.name()).size();
          return readers == 0 ? LockState.FREE : LockState.heldByReaders(readers);
        });
  }
}
