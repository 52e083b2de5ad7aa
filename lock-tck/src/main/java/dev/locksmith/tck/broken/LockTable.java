package dev.locksmith.tck.broken;

import dev.locksmith.LockStoreException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A tiny in-memory "database" with the tables of a JDBC lock store, shared by every connection of
 * one {@link TableLockStore} so that they contend like processes do.
 *
 * <p>Its tables are those of {@code lock-jdbc}: {@code locks(kind, name, owner, holds, version,
 * expires_at)}, one row per exclusive or write lock, never deleted, whose version is the fencing
 * token; {@code lock_readers(name, owner, holds, token, expires_at)}; and {@code
 * lock_waiting_writers(name, owner, expires_at)}. A store runs its statements inside {@link
 * #transaction}, which is atomic; time is the database's clock ({@link System#nanoTime()}), never a
 * client's.
 *
 * <p>It also stands in for a database that fails: {@link #outage(boolean)} makes every transaction
 * throw {@link LockStoreException} (time runs on), and {@link #restart()} loses every table of an
 * {@linkplain #inMemory() in-memory} database and nothing of a {@linkplain #durable() durable} one.
 * (An operator's {@code DELETE} is {@link TableLockStore#deleteHolds}, which knows the store's
 * rows.)
 */
public final class LockTable {

  /** What a hold row has: a hold count and an expiry on the database clock. */
  abstract static class HoldRow {
    int holds;
    long expiresAt;
  }

  /** A row of {@code locks}: the exclusive or write lock called {@code name}. */
  static final class LockRow extends HoldRow {
    @Nullable String owner;
    long version;
  }

  /** A row of {@code lock_readers}: one reader's hold on a read-write lock. */
  static final class ReaderRow extends HoldRow {
    final String owner;
    final long token;

    ReaderRow(String owner, long token, long expiresAt) {
      this.owner = owner;
      this.token = token;
      this.holds = 1;
      this.expiresAt = expiresAt;
    }
  }

  private final boolean durable;
  private final Map<String, LockRow> locks = new HashMap<>();
  private final Map<String, Map<String, ReaderRow>> readers = new HashMap<>();
  private final Map<String, Map<String, Long>> waitingWriters = new HashMap<>();
  private volatile boolean unavailable;

  private LockTable(boolean durable) {
    this.durable = durable;
  }

  /** A database whose tables survive a restart (PostgreSQL, a file-backed H2). */
  public static LockTable durable() {
    return new LockTable(true);
  }

  /** A database that loses every table on restart (an in-memory H2). */
  public static LockTable inMemory() {
    return new LockTable(false);
  }

  /** Whether the tables survive {@link #restart()}. */
  public boolean isDurable() {
    return durable;
  }

  /** Makes every transaction fail with {@link LockStoreException} (true) or work again (false). */
  public void outage(boolean down) {
    this.unavailable = down;
  }

  /** Restarts the database: an in-memory one loses every row, a durable one nothing. */
  public synchronized void restart() {
    if (!durable) {
      locks.clear();
      readers.clear();
      waitingWriters.clear();
    }
  }

  // What the stores' statements use, inside a transaction.

  /** Runs {@code statements} atomically; throws if the database is down. */
  <T> T transaction(Supplier<T> statements) {
    checkUp();
    synchronized (this) {
      return statements.get();
    }
  }

  /** The database clock. */
  long now() {
    return System.nanoTime();
  }

  /** The {@code locks} row of {@code kind} and {@code name}, or null if there is none. */
  @Nullable LockRow lockRow(String kind, String name) {
    return locks.get(key(kind, name));
  }

  /** Inserts a free {@code locks} row (version 0) and returns it. */
  LockRow insertLockRow(String kind, String name) {
    LockRow row = new LockRow();
    locks.put(key(kind, name), row);
    return row;
  }

  /** Deletes a {@code locks} row. */
  void deleteLockRow(String kind, String name) {
    locks.remove(key(kind, name));
  }

  /** The {@code lock_readers} rows of {@code name}, by owner (a live view). */
  Map<String, ReaderRow> readers(String name) {
    return readers.computeIfAbsent(name, k -> new HashMap<>());
  }

  /** The {@code lock_waiting_writers} rows of {@code name}: owner to expiry (a live view). */
  Map<String, Long> waitingWriters(String name) {
    return waitingWriters.computeIfAbsent(name, k -> new HashMap<>());
  }

  private void checkUp() {
    if (unavailable) {
      throw new LockStoreException("the lock table is unavailable (an outage was injected)");
    }
  }

  private static String key(String kind, String name) {
    return kind + ":" + name;
  }
}
