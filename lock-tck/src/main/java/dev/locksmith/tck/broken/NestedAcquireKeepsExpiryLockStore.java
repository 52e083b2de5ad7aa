package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.tck.broken.LockTable.LockRow;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a nested acquire adds a hold but leaves the lease where it was.
 *
 * <p>It mirrors the reentrant branch {@code redis.call('hincrby', KEYS[1], ARGV[2], 1); return nil}
 * without the {@code pexpire} that follows it in Redisson's script, and {@code UPDATE locks SET
 * holds = holds + 1 WHERE owner = ?} without {@code expires_at = ?}. Code that re-enters a lock for
 * a long inner task, counting on the nested acquire's lease, loses the lock to a rival at the outer
 * hold's expiry.
 *
 * <p>The kit must fail it on "a nested acquire by the holder adds a hold and renews the lease"
 * (12.10), for exclusive and write holds (readers keep their own rows, renewed correctly).
 */
public final class NestedAcquireKeepsExpiryLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public NestedAcquireKeepsExpiryLockStore(LockTable table) {
    super(table, "broken/nested-acquire-keeps-expiry");
  }

  @Override
  Acquisition acquireRow(LockRow row, String owner, long leaseNanos, long now) {
    if (isHeld(row, now)) {
      if (owner.equals(row.owner)) {
        row.holds++; // The bug: the nested acquire's lease is not applied.
        return Acquisition.acquired(row.version, row.holds);
      }
      return Acquisition.busy(Duration.ofNanos(row.expiresAt - now));
    }
    row.owner = owner;
    row.holds = 1;
    row.version = newToken(row);
    row.expiresAt = now + leaseNanos;
    return Acquisition.acquired(row.version, 1);
  }
}
