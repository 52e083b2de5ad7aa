package dev.locksmith.tck.broken;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.tck.broken.LockTable.LockRow;

/**
 * BROKEN ON PURPOSE: release decrements the hold count of whoever holds the lock: the owner check
 * is missing from the decrement.
 *
 * <p>It mirrors {@code UPDATE locks SET holds = holds - 1 WHERE name = ? AND expires_at > now()}
 * followed by {@code UPDATE … SET owner = NULL WHERE holds = 0}, with {@code AND owner = ?}
 * forgotten, and the Redis hash lock whose unlock does {@code HINCRBY key owner -1} without first
 * checking {@code HEXISTS}. A late release of an expired lease frees (or decrements) the rival's
 * lock, and anyone can release anyone's.
 *
 * <p>The kit must fail it on the late release after a takeover through the engine (2.1) and on the
 * SPI's owner checks (12.2, 12.4). Readers keep their own rows, owner-checked.
 */
public final class UnownedDecrementLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public UnownedDecrementLockStore(LockTable table) {
    super(table, "broken/unowned-decrement");
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    if (key.mode() == LockMode.READ) {
      return super.release(key, owner);
    }
    checkOpen();
    return table.transaction(
        () -> {
          long now = table.now();
          LockRow row = table.lockRow(kindOf(key.mode()), key.name());
          // The bug: a live row is decremented, whoever's it is.
          if (row == null || !isHeld(row, now)) {
            return ReleaseOutcome.NOT_HELD;
          }
          if (--row.holds > 0) {
            return ReleaseOutcome.HOLD_DECREMENTED;
          }
          row.owner = null;
          return ReleaseOutcome.RELEASED;
        });
  }
}
