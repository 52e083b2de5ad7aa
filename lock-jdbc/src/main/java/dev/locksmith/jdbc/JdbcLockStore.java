package dev.locksmith.jdbc;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.jdbc.internal.LockDatabase;
import dev.locksmith.jdbc.internal.LockDatabase.Statements;
import dev.locksmith.jdbc.internal.LockRow;
import dev.locksmith.jdbc.internal.LockTableSql;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreFailure;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * A lock store on a SQL table (H2, PostgreSQL, MySQL/MariaDB), over a {@link DataSource}.
 *
 * <pre>{@code
 * JdbcLockStore store = new JdbcLockStore(dataSource, JdbcLockStoreOptions.defaults());
 * try (LockClient client = LockClient.of(store, LockOptions.defaults())) { … }
 * }</pre>
 *
 * <p>Each lock is one row {@code (name, kind, owner, holds, version, expires_at)}. Acquiring is one
 * UPDATE guarded by expiry and owner (or, without {@code UPDATE … RETURNING}, a read and an UPDATE
 * guarded by the version read), or an INSERT for a name never seen; releasing is one UPDATE. Rows
 * are never deleted by lock operations, so {@code version} is a durable fencing token. Expiry is
 * judged on the database's clock, never the client's. Read holds of read-write locks live in a
 * second table and are changed in short transactions that row-lock the lock's row; no transaction
 * or row lock is ever held between store calls.
 *
 * <p>Every operation runs on a connection of its own from the data source, in auto-commit, so a
 * lock is neither part of nor undone by a transaction the caller has open (a Spring transaction
 * bound to the same data source included). Operations throw Spring's {@link DataAccessException}s,
 * with the driver's {@link SQLException} as cause; a {@code LockClient} reports them as {@code
 * LockStoreException} of the kind {@link #classify} names.
 *
 * <p>{@link #purgeIdle(Duration)} deletes rows idle for long; it resets their fencing tokens.
 */
public final class JdbcLockStore implements LockStore {

  private static final Set<Capability> DURABLE =
      Set.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);
  private static final Set<Capability> VOLATILE = Set.of(Capability.FENCING, Capability.REENTRANCY);

  private static final String EXCLUSIVE = "X";
  private static final String WRITER = "W";
  // Optimistic loops retry this often when the row keeps changing under them.
  private static final int ATTEMPTS = 16;

  private final JdbcLockStoreOptions options;
  private final LockDatabase db;
  private final LockTableSql sql;
  private final String table;
  private final Set<Capability> capabilities;

  /**
   * A store on {@code dataSource} with default options (table {@code locksmith_locks}, created if
   * missing).
   *
   * @throws LockStoreException if the database cannot be reached or the table cannot be created
   */
  public JdbcLockStore(DataSource dataSource) {
    this(dataSource, JdbcLockStoreOptions.defaults());
  }

  /**
   * A store on {@code dataSource}. The caller keeps owning the data source: {@link #close()} does
   * not close it. Pass the plain data source; a Spring {@link TransactionAwareDataSourceProxy} is
   * unwrapped so that lock statements never join the caller's transaction.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the database is not one of H2, PostgreSQL, MariaDB, MySQL
   * @throws LockStoreException if the database cannot be reached or the table cannot be created
   */
  public JdbcLockStore(DataSource dataSource, JdbcLockStoreOptions options) {
    this(dataSource, options, null);
  }

  JdbcLockStore(
      DataSource dataSource, JdbcLockStoreOptions options, @Nullable AutoCloseable ownedPool) {
    Objects.requireNonNull(dataSource, "dataSource must not be null");
    this.options = Objects.requireNonNull(options, "options must not be null");
    String schema = options.schema().map(name -> name + ".").orElse("");
    this.table = schema + options.table();
    String readers = schema + options.readersTable();
    try {
      this.db = new LockDatabase(dataSource, options.queryTimeout(), ownedPool);
      if (options.createTable()) {
        db.runScript(db.dialect().ddl(table, readers));
      }
      this.capabilities = db.keepsRows() ? DURABLE : VOLATILE;
    } catch (DataAccessException e) {
      throw new LockStoreException(
          "jdbc: cannot open the lock table " + table + ": " + LockDatabase.reason(e), e);
    }
    this.sql = new LockTableSql(db.dialect(), table, readers);
  }

  /** The dialect detected from the connection, such as {@code postgresql}. */
  public String dialect() {
    return db.dialect().id();
  }

  /** The lock table's name, with its schema if one was set. */
  public String table() {
    return table;
  }

  /** The options this store was made with. */
  public JdbcLockStoreOptions options() {
    return options;
  }

  @Override
  public String keyPrefix() {
    return options.keyPrefix();
  }

  @Override
  public String describe() {
    return "jdbc/" + dialect();
  }

  @Override
  public Set<Capability> promises() {
    return capabilities;
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return Optional.of(this::withdraw);
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String name = rowName(key);
    long lease = leaseMillis(leaseTime);
    return db.operation(
        s ->
            switch (key.mode()) {
              case EXCLUSIVE -> acquireExclusive(s, name, owner, lease);
              case WRITE -> underWriterRow(s, name, w -> acquireWrite(s, w, name, owner, lease));
              case READ -> underWriterRow(s, name, w -> acquireRead(s, w, name, owner, lease));
            });
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    String name = rowName(key);
    long lease = leaseMillis(leaseTime);
    return db.operation(
        s ->
            key.mode() == LockMode.READ
                ? s.update(sql.readerExtend, lease, name, owner) == 1
                : s.update(sql.extend, lease, name, kind(key), owner) == 1);
  }

  /**
   * The owner-checked updates of the batch as one JDBC batch per statement (exclusive and write
   * holds, read holds) on one connection: with PostgreSQL's and MariaDB's drivers one round trip
   * each instead of one per hold.
   */
  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) {
    List<Integer> holds = new ArrayList<>();
    List<Object[]> holdRows = new ArrayList<>();
    List<Integer> readers = new ArrayList<>();
    List<Object[]> readerRows = new ArrayList<>();
    for (int i = 0; i < extensions.size(); i++) {
      LeaseExtension e = extensions.get(i);
      LockKey key = e.key();
      long lease = leaseMillis(e.leaseTime());
      if (key.mode() == LockMode.READ) {
        readers.add(i);
        readerRows.add(new Object[] {lease, rowName(key), e.owner()});
      } else {
        holds.add(i);
        holdRows.add(new Object[] {lease, rowName(key), kind(key), e.owner()});
      }
    }
    return db.operation(
        s -> {
          boolean[] held = new boolean[extensions.size()];
          answer(held, holds, holdRows.isEmpty() ? null : s.updateEach(sql.extend, holdRows));
          answer(
              held,
              readers,
              readerRows.isEmpty() ? null : s.updateEach(sql.readerExtend, readerRows));
          return held;
        });
  }

  private static void answer(boolean[] held, List<Integer> positions, int @Nullable [] counts) {
    for (int i = 0; counts != null && i < counts.length; i++) {
      held[positions.get(i)] = counts[i] == 1;
    }
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    String name = rowName(key);
    if (key.mode() != LockMode.READ) {
      return db.operation(s -> release(s, sql.release, name, kind(key), owner));
    }
    // Under the writer row's lock, so that a reader's hold count only changes there.
    return db.operation(
        s -> underWriterRow(s, name, w -> release(s, sql.readerRelease, name, owner)));
  }

  @Override
  public LockState read(LockKey key) {
    String name = rowName(key);
    return db.operation(
        s -> {
          LockRow row = s.queryFirst(sql.selectRow, LockRow.MAPPER, name, kind(key));
          if (row != null && row.live()) {
            return new LockState(true, row.owner(), row.holds(), row.remaining());
          }
          if (key.mode() == LockMode.EXCLUSIVE) {
            return LockState.FREE;
          }
          long readers = count(s, sql.countReaders, name);
          return readers > 0 ? new LockState(true, null, (int) readers, null) : LockState.FREE;
        });
  }

  private void withdraw(LockKey key, String owner) {
    if (key.mode() == LockMode.WRITE) {
      db.operation(s -> s.update(sql.withdraw, rowName(key), WRITER, owner));
    }
  }

  /**
   * Deletes lock rows that nobody has held for longer than {@code idleFor} (and expired read
   * holds), to keep a table of many short-lived names small.
   *
   * <p>A purged name starts again at fencing token 1: run it only with an age far beyond the time
   * any fenced resource could still see an old token.
   *
   * @return the number of rows deleted
   * @throws IllegalArgumentException if {@code idleFor} is negative
   * @throws DataAccessException if the database fails
   */
  public int purgeIdle(Duration idleFor) {
    Objects.requireNonNull(idleFor, "idleFor must not be null");
    if (idleFor.isNegative()) {
      throw new IllegalArgumentException("idleFor must not be negative, was " + idleFor);
    }
    long age = idleFor.toMillis();
    return db.operation(s -> s.update(sql.purgeLocks, age, age) + s.update(sql.purgeReaders, age));
  }

  /**
   * Names the kind of {@code failure} from its most specific cause: Spring's translation, the
   * driver's exception class or SQLSTATE, or the JDK's network exceptions.
   */
  @Override
  public StoreFailure classify(Exception failure) {
    return LockDatabase.failureKind(failure);
  }

  /** Stops the store; closes its pool if it opened one (from a URI), never the caller's. */
  @Override
  public void close() {
    db.close();
  }

  @Override
  public String toString() {
    return "JdbcLockStore{" + describe() + ", table=" + table + "}";
  }

  // The operations.

  private Acquisition acquireExclusive(Statements s, String name, String owner, long lease) {
    if (sql.acquireReturning != null) {
      // One statement in the steady state: the guarded UPDATE must hand back version and holds
      // (token, nested count) from the row it wrote, atomically; a separate read would add a
      // statement and could see the row after a short lease expired. The INSERT below runs only
      // for a name never seen (or a busy lock), since rows are never deleted.
      long[] result =
          s.queryLongs(sql.acquireReturning, owner, owner, owner, lease, name, EXCLUSIVE, owner);
      if (result != null) {
        return Acquisition.acquired(result[0], (int) result[1]);
      }
      // No row matched: the name is new, or someone else holds it.
      return s.insert(sql.insertHeld, name, EXCLUSIVE, owner, lease)
          ? Acquisition.acquired(1, 1)
          : Acquisition.busy();
    }
    // Optimistic (no UPDATE … RETURNING): read the row, then write it back guarded by the version
    // (and holds) we read. Two statements are the least here: the read yields the token and holds
    // that the UPDATE cannot return, and the version guard makes the pair atomic.
    for (int i = 0; i < ATTEMPTS; i++) {
      LockRow row = s.queryFirst(sql.selectRow, LockRow.MAPPER, name, EXCLUSIVE);
      if (row == null) {
        if (s.insert(sql.insertHeld, name, EXCLUSIVE, owner, lease)) {
          return Acquisition.acquired(1, 1);
        }
      } else if (row.live()) {
        if (!owner.equals(row.owner())) {
          return Acquisition.busy(row.remaining());
        }
        if (s.update(sql.reenterGuarded, lease, name, EXCLUSIVE, owner, row.version(), row.holds())
            == 1) {
          return Acquisition.acquired(row.version(), row.holds() + 1);
        }
      } else if (s.update(sql.takeGuarded, owner, lease, name, EXCLUSIVE, row.version()) == 1) {
        return Acquisition.acquired(row.version() + 1, 1);
      }
    }
    return Acquisition.busy();
  }

  private Acquisition acquireWrite(Statements s, LockRow w, String name, String owner, long lease) {
    if (w.live()) {
      if (owner.equals(w.owner())) {
        s.update(sql.writerReenter, lease, name, WRITER);
        return Acquisition.acquired(w.version(), w.holds() + 1);
      }
      markWaiting(s, w, name, owner, lease);
      return Acquisition.busy(w.remaining());
    }
    Long latestReader = s.queryLong(sql.latestReaderExpiry, name);
    if (latestReader != null) {
      // Readers hold it: keep new readers out until this writer gets in or withdraws.
      markWaiting(s, w, name, owner, lease);
      return Acquisition.busy(Duration.ofMillis(Math.max(1, latestReader - w.now())));
    }
    s.update(sql.writerTake, owner, lease, owner, name, WRITER);
    return Acquisition.acquired(w.version() + 1, 1);
  }

  private void markWaiting(Statements s, LockRow w, String name, String owner, long lease) {
    if (!w.writerWaitsBesides(owner)) {
      s.update(sql.writerWait, owner, lease, name, WRITER);
    }
  }

  private Acquisition acquireRead(Statements s, LockRow w, String name, String owner, long lease) {
    if (w.live() && !owner.equals(w.owner())) {
      return Acquisition.busy(w.remaining());
    }
    long[] mine = s.queryLongs(sql.selectReader, name, owner);
    boolean mineLive = mine != null && mine[1] > w.now();
    if (mineLive) {
      s.update(sql.readerReenter, lease, name, owner);
      return Acquisition.acquired(w.version(), (int) mine[0] + 1);
    }
    if (w.writerWaitsBesides(owner)) {
      return Acquisition.busy();
    }
    if (mine != null) {
      s.update(sql.deleteReader, name, owner);
    }
    s.update(sql.insertReader, name, owner, lease);
    return Acquisition.acquired(w.version(), 1);
  }

  /**
   * Runs {@code body} in a short transaction that holds the row lock of the writer row of {@code
   * name}, which serialises every change to that read-write lock. The row is created first (in
   * auto-commit, outside the transaction) if missing: creating it inside would make two InnoDB
   * transactions deadlock on the gap lock of the row that is not there yet.
   */
  private <T> T underWriterRow(Statements s, String name, Function<LockRow, T> body) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      T result =
          s.transaction(
              () -> {
                LockRow w = s.queryFirst(sql.selectRowForUpdate, LockRow.MAPPER, name, WRITER);
                return w == null ? null : body.apply(w);
              });
      if (result != null) {
        return result;
      }
      s.insert(sql.insertFreeWriter, name, WRITER);
    }
    throw new ConcurrencyFailureException("the writer row of '" + name + "' keeps vanishing");
  }

  /**
   * Releases one hold: the common last hold first, then a nested one; if neither matched, checks
   * whether the owner holds it at all (a concurrent change of the same owner's holds retries).
   */
  private ReleaseOutcome release(
      Statements s, LockTableSql.HoldRelease statements, Object... args) {
    for (int i = 0; i < ATTEMPTS; i++) {
      if (s.update(statements.last(), args) == 1) {
        return ReleaseOutcome.RELEASED;
      }
      if (s.update(statements.nested(), args) == 1) {
        return ReleaseOutcome.HOLD_DECREMENTED;
      }
      if (count(s, statements.countHeld(), args) == 0) {
        return ReleaseOutcome.NOT_HELD;
      }
    }
    throw new ConcurrencyFailureException("the hold kept changing during release; outcome unknown");
  }

  private long count(Statements s, String statement, Object... args) {
    Long value = s.queryLong(statement, args);
    return value == null ? 0 : value;
  }

  private String rowName(LockKey key) {
    String prefix = options.keyPrefix();
    // Without a prefix, the caller's own String: a concatenation would make a new one per call,
    // and H2 looks each bound string up in its cache, which an equal but new String turns from an
    // identity check into a comparison of the bytes and a hash computed again.
    return prefix.isEmpty() ? key.name() : prefix + key.name();
  }

  private static String kind(LockKey key) {
    return key.mode() == LockMode.EXCLUSIVE ? EXCLUSIVE : WRITER;
  }

  /**
   * The lease in milliseconds plus one: the database clock is read truncated to the millisecond,
   * and the store must hold at least as long as asked. The engine has rounded the lease up to whole
   * milliseconds ({@link #timing()}).
   */
  private static long leaseMillis(Duration leaseTime) {
    return leaseTime.toMillis() + 1;
  }
}
