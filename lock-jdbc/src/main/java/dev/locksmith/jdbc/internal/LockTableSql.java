package dev.locksmith.jdbc.internal;

import org.jspecify.annotations.Nullable;

/**
 * The statements of the JDBC store, built once per store from its dialect and its (validated) table
 * names, so that no operation concatenates SQL. Every value is a bound parameter; the only text
 * spliced in is the table names and the dialect's clock expression.
 *
 * <p>Table {@code T} has one row per lock: {@code kind} 'X' for an exclusive lock, 'W' for the
 * writer side of a read-write lock. Table {@code R} has one row per reader of a read-write lock.
 * Times are milliseconds on the database clock ({@code NOW}).
 */
public final class LockTableSql {

  /**
   * Exclusive acquire in one statement, returning {@code version, holds}; null if the dialect
   * cannot.
   */
  public final @Nullable String acquireReturning;

  /** Inserts a held lock row with version 1. */
  public final String insertHeld;

  /** Inserts a free writer row with version 0 (the first writer gets 1). */
  public final String insertFreeWriter;

  /** Reads a lock row and the database clock. */
  public final String selectRow;

  /** Reads and row-locks a lock row and the database clock, inside a short transaction. */
  public final String selectRowForUpdate;

  /** Version-guarded re-entry by the live holder. */
  public final String reenterGuarded;

  /** Version-guarded take-over of a free or expired row. */
  public final String takeGuarded;

  /** Sets a live holder's expiry. */
  public final String extend;

  /**
   * Releases a hold of an exclusive lock or a writer: the last one frees the row (keeping the row
   * and its version).
   */
  public final HoldRelease release;

  /** Re-entry of the writer, under the row lock. */
  public final String writerReenter;

  /** Take-over by a writer, under the row lock; clears its waiting-writer mark. */
  public final String writerTake;

  /** Records a waiting writer. */
  public final String writerWait;

  /** Removes a waiting writer's mark. */
  public final String withdraw;

  /** An owner's read hold, whether live or not. */
  public final String selectReader;

  /** The latest expiry among live readers (null if none). */
  public final String latestReaderExpiry;

  /** The number of live readers. */
  public final String countReaders;

  /** Adds a reader with one hold. */
  public final String insertReader;

  /** Adds a hold to a reader. */
  public final String readerReenter;

  /** Removes an owner's reader row. */
  public final String deleteReader;

  /** Releases a hold of a reader: the last one drops the reader's row. */
  public final HoldRelease readerRelease;

  /** Sets a live reader's expiry. */
  public final String readerExtend;

  /** Deletes lock rows idle longer than the bound age. */
  public final String purgeLocks;

  /** Deletes reader rows expired longer than the bound age. */
  public final String purgeReaders;

  /** Builds the statements for {@code table} and {@code readers} (qualified, validated names). */
  public LockTableSql(SqlDialect dialect, String table, String readers) {
    String now = dialect.nowMillis();
    String t = table;
    String r = readers;
    String held = " WHERE name = ? AND kind = ? AND owner = ? AND expires_at > " + now;
    String core =
        "UPDATE "
            + t
            + " SET holds = CASE WHEN owner = ? AND expires_at > "
            + now
            + " THEN holds + 1 ELSE 1 END, version = CASE WHEN owner = ? AND expires_at > "
            + now
            + " THEN version ELSE version + 1 END, owner = ?, expires_at = "
            + now
            + " + ? WHERE name = ? AND kind = ? AND (expires_at <= "
            + now
            + " OR owner = ?)";
    acquireReturning = dialect.updateReturning() ? dialect.returning(core, "version, holds") : null;
    String insert =
        "INSERT INTO "
            + t
            + " (name, kind, owner, holds, version, expires_at, waiting_owner, waiting_until)";
    insertHeld =
        dialect.insertIgnoringDuplicate(
            insert + " VALUES (?, ?, ?, 1, 1, " + now + " + ?, NULL, 0)");
    insertFreeWriter =
        dialect.insertIgnoringDuplicate(insert + " VALUES (?, ?, NULL, 0, 0, 0, NULL, 0)");
    String columns = "owner, holds, version, expires_at, waiting_owner, waiting_until, " + now;
    selectRow = "SELECT " + columns + " FROM " + t + " WHERE name = ? AND kind = ?";
    selectRowForUpdate = selectRow + " FOR UPDATE";
    reenterGuarded =
        "UPDATE "
            + t
            + " SET holds = holds + 1, expires_at = "
            + now
            + " + ?"
            + held
            + " AND version = ? AND holds = ?";
    takeGuarded =
        "UPDATE "
            + t
            + " SET owner = ?, holds = 1, version = version + 1, expires_at = "
            + now
            + " + ? WHERE name = ? AND kind = ? AND version = ? AND expires_at <= "
            + now;
    extend = "UPDATE " + t + " SET expires_at = " + now + " + ?" + held;
    String releaseLast =
        "UPDATE "
            + t
            + " SET owner = NULL, holds = 0, expires_at = "
            + now
            + held
            + " AND holds = 1";
    release =
        new HoldRelease(
            releaseLast,
            "UPDATE " + t + " SET holds = holds - 1" + held + " AND holds > 1",
            "SELECT COUNT(*) FROM " + t + held);
    writerReenter =
        "UPDATE "
            + t
            + " SET holds = holds + 1, expires_at = "
            + now
            + " + ? WHERE name = ? AND kind = ?";
    writerTake =
        "UPDATE "
            + t
            + " SET owner = ?, holds = 1, version = version + 1, expires_at = "
            + now
            + " + ?, waiting_owner = CASE WHEN waiting_owner = ? THEN NULL ELSE waiting_owner END"
            + " WHERE name = ? AND kind = ?";
    writerWait =
        "UPDATE "
            + t
            + " SET waiting_owner = ?, waiting_until = "
            + now
            + " + ? WHERE name = ? AND kind = ?";
    withdraw =
        "UPDATE "
            + t
            + " SET waiting_owner = NULL, waiting_until = 0"
            + " WHERE name = ? AND kind = ? AND waiting_owner = ?";
    String liveReaders = " FROM " + r + " WHERE name = ? AND expires_at > " + now;
    String readerHeld = " WHERE name = ? AND owner = ? AND expires_at > " + now;
    selectReader = "SELECT holds, expires_at FROM " + r + " WHERE name = ? AND owner = ?";
    latestReaderExpiry = "SELECT MAX(expires_at)" + liveReaders;
    countReaders = "SELECT COUNT(*)" + liveReaders;
    insertReader =
        "INSERT INTO " + r + " (name, owner, holds, expires_at) VALUES (?, ?, 1, " + now + " + ?)";
    readerReenter =
        "UPDATE "
            + r
            + " SET holds = holds + 1, expires_at = "
            + now
            + " + ? WHERE name = ? AND owner = ?";
    deleteReader = "DELETE FROM " + r + " WHERE name = ? AND owner = ?";
    readerRelease =
        new HoldRelease(
            "DELETE FROM " + r + readerHeld + " AND holds = 1",
            "UPDATE " + r + " SET holds = holds - 1" + readerHeld + " AND holds > 1",
            "SELECT COUNT(*) FROM " + r + readerHeld);
    readerExtend = "UPDATE " + r + " SET expires_at = " + now + " + ?" + readerHeld;
    purgeLocks =
        "DELETE FROM "
            + t
            + " WHERE expires_at < "
            + now
            + " - ? AND waiting_until < "
            + now
            + " - ?";
    purgeReaders = "DELETE FROM " + r + " WHERE expires_at < " + now + " - ?";
  }

  /**
   * The statements that release one hold, all taking the same parameters.
   *
   * @param last frees the owner's last hold
   * @param nested drops one of the owner's several holds
   * @param countHeld counts the owner's live hold (0 or 1)
   */
  public record HoldRelease(String last, String nested, String countHeld) {}
}
