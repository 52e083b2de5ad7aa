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
 * expires_at)}, one row per exclusive or write lock while it is held, whose version is the fencing
 * token drawn from the table's sequence {@code lock_tokens}; {@code lock_readers(name, owner,
 * holds, token, expires_at)}; and {@code lock_waiting_writers(name, owner, expires_at)}. Rows of
 * ended holds are deleted, and a sweep that transactions run at most every 100 ms deletes what
 * expired holds left, so the tables hold only live locks. A store runs its statements inside {@link
 * #transaction}, which is atomic; time is the database's clock ({@link System#nanoTime()}), never a
 * client's.
 *
 * <p>It also stands in for a database that fails: {@link #startOutage()} makes every transaction
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
  // The sequence lock_tokens: the last token drawn. Survives a restart of a durable database.
  private long lastToken;
  private long sweptAt = System.nanoTime();

  /** How often transactions sweep out what expired holds left. */
  private static final long SWEEP_INTERVAL_NANOS = 100_000_000L;

  /**
   * How long an expired row stays before a sweep deletes it, so that a take-over usually finds the
   * expired row, as with a database sweep that runs every few seconds.
   */
  static final long SWEEP_GRACE_NANOS = 3_000_000_000L;

  /** How long after a hold ends the sweep may take to delete what it left. */
  public static final java.time.Duration CLEANUP_DELAY =
      java.time.Duration.ofNanos(SWEEP_INTERVAL_NANOS + SWEEP_GRACE_NANOS);

  /** Whether a restart keeps the tables. */
  private enum Durability {
    DURABLE,
    IN_MEMORY
  }

  private LockTable(Durability durability) {
    this.durable = durability == Durability.DURABLE;
  }

  /** A database whose tables survive a restart (PostgreSQL, a file-backed H2). */
  public static LockTable durable() {
    return new LockTable(Durability.DURABLE);
  }

  /** A database that loses every table on restart (an in-memory H2). */
  public static LockTable inMemory() {
    return new LockTable(Durability.IN_MEMORY);
  }

  /** Whether the tables survive {@link #restart()}. */
  public boolean isDurable() {
    return durable;
  }

  /** Makes every transaction fail with {@link LockStoreException} until {@link #endOutage()}. */
  public void startOutage() {
    this.unavailable = true;
  }

  /** Makes transactions work again after {@link #startOutage()}. */
  public void endOutage() {
    this.unavailable = false;
  }

  /** Restarts the database: an in-memory one loses every row, a durable one nothing. */
  public synchronized void restart() {
    if (!durable) {
      locks.clear();
      readers.clear();
      waitingWriters.clear();
      lastToken = 0;
    }
  }

  // What the stores' statements use, inside a transaction.

  /** Runs {@code statements} atomically; throws if the database is down. */
  <T> T transaction(Supplier<T> statements) {
    checkUp();
    synchronized (this) {
      sweepIfDue(now());
      return statements.get();
    }
  }

  /** {@code nextval('lock_tokens')}. */
  long nextToken() {
    return ++lastToken;
  }

  /** The sequence's last value: every token drawn so far is at most this. */
  long lastToken() {
    return lastToken;
  }

  /**
   * Deletes lock rows nobody holds, expired readers and lapsed waiting marks, at most every 100 ms:
   * a crashed holder's row would otherwise stay until its name was used again.
   */
  private void sweepIfDue(long now) {
    if (now - sweptAt < SWEEP_INTERVAL_NANOS) {
      return;
    }
    sweptAt = now;
    dropIdle(now - SWEEP_GRACE_NANOS, name -> true);
  }

  /** Drops, for the names {@code names} accepts, what no hold live at {@code now} needs. */
  private void dropIdle(long now, java.util.function.Predicate<String> names) {
    locks
        .entrySet()
        .removeIf(
            e ->
                names.test(nameOf(e.getKey()))
                    && (e.getValue().owner == null || e.getValue().expiresAt - now <= 0));
    readers
        .entrySet()
        .removeIf(
            e -> {
              if (!names.test(e.getKey())) {
                return false;
              }
              e.getValue().values().removeIf(r -> r.expiresAt - now <= 0);
              return e.getValue().isEmpty();
            });
    waitingWriters
        .entrySet()
        .removeIf(
            e -> {
              if (!names.test(e.getKey())) {
                return false;
              }
              e.getValue().values().removeIf(expiresAt -> expiresAt - now <= 0);
              return e.getValue().isEmpty();
            });
  }

  /**
   * How many rows the tables hold for names that {@code names} accepts (for an inspector; the
   * sequence is one shared object and not counted).
   */
  public synchronized long rows(java.util.function.Predicate<String> names) {
    long n = locks.keySet().stream().filter(k -> names.test(nameOf(k))).count();
    for (Map.Entry<String, Map<String, ReaderRow>> e : readers.entrySet()) {
      n += names.test(e.getKey()) ? e.getValue().size() : 0;
    }
    for (Map.Entry<String, Map<String, Long>> e : waitingWriters.entrySet()) {
      n += names.test(e.getKey()) ? e.getValue().size() : 0;
    }
    return n;
  }

  /**
   * Deletes every row for names that {@code names} accepts that no live hold needs, as a sweep
   * would; the sequence stays (a database does not evict it).
   */
  public synchronized void dropIdle(java.util.function.Predicate<String> names) {
    dropIdle(now(), names);
  }

  private static String nameOf(String key) {
    return key.substring(key.indexOf(':') + 1);
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
