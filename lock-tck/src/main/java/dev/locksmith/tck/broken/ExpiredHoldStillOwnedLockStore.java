package dev.locksmith.tck.broken;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.broken.LockTable.HoldRow;
import dev.locksmith.tck.broken.LockTable.LockRow;
import org.jspecify.annotations.Nullable;

/**
 * BROKEN ON PURPOSE: extend and release check the owner but not the expiry, so a hold that expired
 * and was not yet taken over can still be extended (brought back to life) or released (answered
 * RELEASED).
 *
 * <p>It mirrors {@code UPDATE locks SET expires_at = ? WHERE name = ? AND owner = ?} and {@code …
 * SET owner = NULL WHERE name = ? AND owner = ?} without {@code AND expires_at > now()}: in a table
 * the expired row is still there with the old owner in it. A holder back from a long pause renews a
 * lock that was free for anyone to take meanwhile, and its release claims a clean end to a lease it
 * had lost.
 *
 * <p>The kit must fail it on "release and extend by an owner whose hold expired with no takeover
 * answer NOT_HELD and false" (12.3), and on the same after a takeover by a reader (12.4): a reader
 * that takes over an expired write lock leaves the writer's row as it was. Through the engine (2.1,
 * 2.2, 2.6) it shows only by timing luck: the engine usually learns on its own clock that the lease
 * ran out and throws before it asks the store.
 */
public final class ExpiredHoldStillOwnedLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public ExpiredHoldStillOwnedLockStore(LockTable table) {
    super(table, "broken/expired-hold-still-owned");
  }

  @Override
  @Nullable HoldRow ownedHold(LockKey key, String owner, long now) {
    // The bug: owned means "the owner column matches", live or not.
    if (key.mode() == LockMode.READ) {
      return table.readers(key.name()).get(owner);
    }
    LockRow row = table.lockRow(kindOf(key.mode()), key.name());
    return row != null && owner.equals(row.owner) ? row : null;
  }
}
