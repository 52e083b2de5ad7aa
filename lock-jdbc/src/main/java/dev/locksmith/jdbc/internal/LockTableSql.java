package dev.locksmith.jdbc.internal;

import org.jspecify.annotations.Nullable;

/**
 * The statements of the JDBC store, built once per store from its dialect and its (validated) table
 * and sequence names, so that no operation concatenates SQL. Every value is a bound parameter; the
 * only text spliced in is the table and sequence names and the dialect's clock expression.
 *
 * <p>Table {@code T} has one row per held lock: {@code kind} 'X' for an exclusive lock, 'W' for the
 * writer side of a read-write lock (kept while readers or a waiting writer need it). Table {@code
 * R} has one row per reader of a read-write lock. Times are milliseconds on the database clock
 * ({@code NOW}). A row's {@code version} is the token of its holder, drawn from the sequence {@code
 * S} only while the statement holds the row's lock (or, on PostgreSQL, a lock on the name), so that
 * a token drawn later always goes to a later holder: rows can be deleted when a lock is released.
 */
public final class LockTableSql {

  /** The rows the sweep deletes per statement, so that no sweep holds locks for long. */
  public static final int SWEEP_BATCH = 500;

  // PostgreSQL advisory locks of the two-key form live apart from the one-key form applications
  // use most; this first key ("Lock" in ASCII) names the JDBC store's locks on lock names.
  private static final int ADVISORY_CLASS = 0x4C6F636B;

  /**
   * The exclusive acquire in one statement: takes a missing, free or expired row, adds a nested
   * hold of the owner or changes nothing (busy). Its parameters and answer depend on the dialect:
   *
   * <ul>
   *   <li>PostgreSQL ({@code name, name, owner, lease}): {@code version, holds}, no row if busy.
   *   <li>H2 ({@code name, name, owner, owner, owner, owner, lease}): {@code owner, version, holds,
   *       expires_at, NOW} of the rows written (the last is the hold); none if busy (or if the row
   *       vanished meanwhile).
   *   <li>MariaDB ({@code name, name, owner, lease}): {@code owner, version, holds, expires_at,
   *       NOW} of the row after the statement (the last row returned).
   *   <li>MySQL ({@code name, name, owner, lease}): the update count (found rows), 2 if busy, 3 if
   *       held; a new hold has token 0 until {@link #stampToken}.
   * </ul>
   */
  public final String acquire;

  /** MySQL: sets a new hold's token ({@code token, name, owner}); null elsewhere. */
  public final @Nullable String stampToken;

  /** Draws a token (see {@link SqlDialect#drawToken}). */
  public final String drawToken;

  /** One more than the greatest version in the lock table: the first token of a new sequence. */
  public final String firstToken;

  /** Inserts a free writer row with version 0 (no token yet). */
  public final String insertFreeWriter;

  /** Reads a lock row and the database clock. */
  public final String selectRow;

  /** Reads and row-locks a lock row and the database clock, inside a short transaction. */
  public final String selectRowForUpdate;

  /** Sets a live holder's expiry. */
  public final String extend;

  /** Releases a hold of an exclusive lock: the last one deletes the row. */
  public final HoldRelease release;

  /**
   * Releases a hold of a writer: the last one deletes the row unless a waiting writer's mark or a
   * reader needs it, and frees it then.
   */
  public final HoldRelease writerRelease;

  /** Re-entry of the writer, under the row lock. */
  public final String writerReenter;

  /** Take-over by a writer with a token drawn under the row lock; clears its waiting mark. */
  public final String writerTake;

  /** Sets the token of a writer row that has none yet, under the row lock. */
  public final String setWriterToken;

  /** Records a waiting writer. */
  public final String writerWait;

  /** Removes a waiting writer's mark. */
  public final String withdraw;

  /** Deletes one writer row if nobody holds it, no writer waits and no reader holds. */
  public final String dropIdleWriter;

  /** Reads one reader's row. */
  public final String selectReader;

  /** The latest expiry of the live readers of a name. */
  public final String latestReaderExpiry;

  /** Counts the live readers of a name. */
  public final String countReaders;

  /** Adds a reader. */
  public final String insertReader;

  /** Re-entry of a reader. */
  public final String readerReenter;

  /** Deletes a reader's (expired) row. */
  public final String deleteReader;

  /** Releases a hold of a reader: the last one drops the reader's row. */
  public final HoldRelease readerRelease;

  /** Sets a live reader's expiry. */
  public final String readerExtend;

  /**
   * Deletes up to {@link #SWEEP_BATCH} exclusive rows expired longer than the bound age (see {@link
   * SqlDialect#limitedDeleteArgs}).
   */
  public final String sweepLocks;

  /** Deletes up to a batch of writer rows idle longer than the bound age. */
  public final String sweepWriters;

  /** Deletes up to a batch of reader rows expired longer than the bound age. */
  public final String sweepReaders;

  /**
   * Builds the statements for {@code table}, {@code readers} and {@code sequence} (qualified,
   * validated names).
   */
  public LockTableSql(SqlDialect dialect, String table, String readers, String sequence) {
    String now = dialect.nowMillis();
    String t = table;
    String r = readers;
    String held = " WHERE name = ? AND kind = ? AND owner = ? AND expires_at > " + now;
    String columns =
        " (name, kind, owner, holds, version, expires_at, waiting_owner, waiting_until)";
    acquire =
        switch (dialect) {
          case POSTGRESQL -> postgresAcquire(t, sequence, now, columns);
          case H2 -> h2Acquire(t, sequence, now, columns);
          case MARIADB, MYSQL -> mariaDbAcquire(dialect, t, sequence, now, columns);
        };
    stampToken =
        dialect.hasSequences()
            ? null
            : "UPDATE "
                + t
                + " SET version = ? WHERE name = ? AND kind = 'X' AND owner = ? AND version = 0";
    drawToken = dialect.drawToken(sequence);
    firstToken = "SELECT COALESCE(MAX(version), 0) + 1 FROM " + t;
    insertFreeWriter =
        dialect.insertIgnoringDuplicate(
            "INSERT INTO " + t + columns + " VALUES (?, ?, NULL, 0, 0, 0, NULL, 0)");
    String rowColumns = "owner, holds, version, expires_at, waiting_owner, waiting_until, " + now;
    selectRow = "SELECT " + rowColumns + " FROM " + t + " WHERE name = ? AND kind = ?";
    selectRowForUpdate = selectRow + " FOR UPDATE";
    extend = "UPDATE " + t + " SET expires_at = " + now + " + ?" + held;
    String nested = "UPDATE " + t + " SET holds = holds - 1" + held + " AND holds > 1";
    String countHeld = "SELECT COUNT(*) FROM " + t + held;
    release =
        new HoldRelease("DELETE FROM " + t + held + " AND holds = 1", null, nested, countHeld);
    String noLiveReader =
        "NOT EXISTS (SELECT 1 FROM "
            + r
            + " r WHERE r.name = "
            + t
            + ".name AND r.expires_at > "
            + now
            + ")";
    writerRelease =
        new HoldRelease(
            "DELETE FROM "
                + t
                + held
                + " AND holds = 1 AND (waiting_owner IS NULL OR waiting_until <= "
                + now
                + ") AND "
                + noLiveReader,
            "UPDATE "
                + t
                + " SET owner = NULL, holds = 0, expires_at = "
                + now
                + held
                + " AND holds = 1",
            nested,
            countHeld);
    writerReenter =
        "UPDATE "
            + t
            + " SET holds = holds + 1, expires_at = "
            + now
            + " + ? WHERE name = ? AND kind = ?";
    writerTake =
        "UPDATE "
            + t
            + " SET owner = ?, holds = 1, version = ?, expires_at = "
            + now
            + " + ?, waiting_owner = CASE WHEN waiting_owner = ? THEN NULL ELSE waiting_owner END"
            + " WHERE name = ? AND kind = ?";
    setWriterToken = "UPDATE " + t + " SET version = ? WHERE name = ? AND kind = ?";
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
    // A writer row is idle once its holder's lease and any waiting mark ran out (a free row's
    // expiry is its release time, or 0) and no reader holds: nothing it coordinates is left.
    String idleWriterSince =
        "expires_at <= " + now + " - ? AND waiting_until <= " + now + " - ? AND " + noLiveReader;
    dropIdleWriter = "DELETE FROM " + t + " WHERE name = ? AND kind = 'W' AND " + idleWriterSince;
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
            null,
            "UPDATE " + r + " SET holds = holds - 1" + readerHeld + " AND holds > 1",
            "SELECT COUNT(*) FROM " + r + readerHeld);
    readerExtend = "UPDATE " + r + " SET expires_at = " + now + " + ?" + readerHeld;
    sweepLocks =
        dialect.limitedDelete(t, "name, kind", "kind = 'X' AND expires_at <= " + now + " - ?");
    sweepWriters = dialect.limitedDelete(t, "name, kind", "kind = 'W' AND " + idleWriterSince);
    sweepReaders = dialect.limitedDelete(r, "name, owner", "expires_at <= " + now + " - ?");
  }

  /**
   * PostgreSQL: a transaction-scoped advisory lock on the name first, then an upsert. The token is
   * drawn in the INSERT's values, before the statement learns whether the row exists: without the
   * lock, a statement that drew a token and then stalled could insert the row after a later acquire
   * (with a greater token) had come and gone, handing a later holder a smaller token. The lock
   * makes acquires of one name take turns from before their draw to their commit; releases,
   * extensions and other names are not held up.
   */
  private static String postgresAcquire(String t, String sequence, String now, String columns) {
    String mine = "t.owner = EXCLUDED.owner AND t.expires_at > " + now;
    return "WITH turn AS (SELECT pg_advisory_xact_lock("
        + ADVISORY_CLASS
        + ", hashtext(?)))"
        + " INSERT INTO "
        + t
        + " AS t"
        + columns
        + " SELECT ?, 'X', ?, 1, nextval('"
        + sequence
        + "'), "
        + now
        + " + ?, NULL, 0 FROM turn"
        + " ON CONFLICT (name, kind) DO UPDATE SET version = CASE WHEN "
        + mine
        + " THEN t.version ELSE EXCLUDED.version END, holds = CASE WHEN "
        + mine
        + " THEN t.holds + 1 ELSE 1 END, owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
        + " WHERE t.expires_at <= "
        + now
        + " OR t.owner = EXCLUDED.owner RETURNING version, holds";
  }

  /**
   * H2: a MERGE of two source rows. The first (step 0) inserts a free placeholder row if the name
   * has none; the second (step 1) then matches the row, locked by this statement, and takes it,
   * drawing the token only now, under the row's lock (a token drawn before the INSERT could be
   * older than the token of a holder that came and went meanwhile). If the row exists the first row
   * does nothing and the second takes it over, re-enters or, when busy, changes nothing.
   */
  private static String h2Acquire(String t, String sequence, String now, String columns) {
    String mine = "t.owner = ? AND t.expires_at > " + now;
    return "SELECT owner, version, holds, expires_at, "
        + now
        + " FROM FINAL TABLE (MERGE INTO "
        + t
        + " t USING (VALUES (CAST(? AS VARCHAR(320)), 0), (?, 1)) s(name, step)"
        + " ON t.name = s.name AND t.kind = 'X' AND s.step = 1"
        + " WHEN MATCHED AND (t.expires_at <= "
        + now
        + " OR t.owner = ?) THEN UPDATE SET version = CASE WHEN "
        + mine
        + " THEN t.version ELSE NEXT VALUE FOR "
        + sequence
        + " END, holds = CASE WHEN "
        + mine
        + " THEN t.holds + 1 ELSE 1 END, owner = ?, expires_at = "
        + now
        + " + ?"
        + " WHEN NOT MATCHED AND s.step = 0 AND NOT EXISTS (SELECT 1 FROM "
        + t
        + " x WHERE x.name = s.name AND x.kind = 'X') THEN INSERT"
        + columns
        + " VALUES (s.name, 'X', NULL, 0, 0, 0, NULL, 0))";
  }

  /**
   * MariaDB and MySQL: {@code INSERT … ON DUPLICATE KEY UPDATE} of two rows of the same key. The
   * first (holds 0) inserts a free placeholder if the name has no row and otherwise changes
   * nothing; the second (holds 1) then meets the row as a duplicate, with its lock held, and takes
   * it over, re-enters or changes nothing (busy). The token is drawn only then (MariaDB), under the
   * row's lock, or stamped by a later statement (MySQL). MySQL and MariaDB assign the columns left
   * to right, each seeing the ones assigned before: {@code version} and {@code holds} go first,
   * {@code owner} next and {@code expires_at} last, whose condition holds for a take-over (old
   * expiry) and a re-entry (owner) alike.
   */
  private static String mariaDbAcquire(
      SqlDialect dialect, String t, String sequence, String now, String columns) {
    String mine = "VALUES(holds) = 1";
    String free = mine + " AND expires_at <= " + now;
    String token = dialect.hasSequences() ? dialect.nextValue(sequence) : "0";
    return "INSERT INTO "
        + t
        + columns
        + " VALUES (?, 'X', NULL, 0, 0, 0, NULL, 0), (?, 'X', ?, 1, 0, "
        + now
        + " + ?, NULL, 0) ON DUPLICATE KEY UPDATE version = IF("
        + free
        + ", "
        + token
        + ", version), holds = IF("
        + free
        + ", 1, IF("
        + mine
        + " AND owner = VALUES(owner), holds + 1, holds)), owner = IF("
        + free
        + ", VALUES(owner), owner), expires_at = IF("
        + mine
        + " AND (expires_at <= "
        + now
        + " OR owner = VALUES(owner)), VALUES(expires_at), expires_at)"
        + (dialect.hasSequences() ? " RETURNING owner, version, holds, expires_at, " + now : "");
  }

  /**
   * The statements that release one hold, all taking the same parameters.
   *
   * @param last ends the owner's last hold, deleting the row
   * @param lastKeeping ends the owner's last hold but keeps the (free) row, for when {@code last}
   *     must leave it; null where {@code last} always applies
   * @param nested drops one of the owner's several holds
   * @param countHeld counts the owner's live hold (0 or 1)
   */
  public record HoldRelease(
      String last, @Nullable String lastKeeping, String nested, String countHeld) {}
}
