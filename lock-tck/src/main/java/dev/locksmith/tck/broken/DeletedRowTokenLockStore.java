package dev.locksmith.tck.broken;

import dev.locksmith.tck.broken.LockTable.LockRow;

/**
 * BROKEN ON PURPOSE: release deletes the lock's row (as the correct table store does), but the
 * fencing token is the row's version plus one instead of the table's sequence, so every holder
 * after a release starts again at version 1.
 *
 * <p>It mirrors a JDBC store that "keeps the table small" with {@code DELETE FROM locks WHERE name
 * = ? AND owner = ?} while fencing by the {@code version} column, which only means something if
 * rows are never deleted (the design says so; the cleanup job or release did not listen). Tokens
 * still rise across takeovers of an expired row, so the defect hides until locks are released
 * normally, which is almost always.
 *
 * <p>The kit must fail it wherever a holder follows a released one: successive holders (5.1), a
 * restart (5.4), and the history checker's token order under contention (1.3, 8.6, 9.1).
 */
public final class DeletedRowTokenLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public DeletedRowTokenLockStore(LockTable table) {
    super(table, "broken/deleted-row-token");
  }

  @Override
  long newToken(LockRow row) {
    return row.version + 1; // The bug: the version goes with the row, which release deletes.
  }
}
