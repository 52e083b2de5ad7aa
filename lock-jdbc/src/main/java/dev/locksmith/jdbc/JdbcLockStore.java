package dev.locksmith.jdbc;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.jdbc.internal.LockDatabase;
import dev.locksmith.jdbc.internal.LockDatabase.Statements;
import dev.locksmith.jdbc.internal.LockRow;
import dev.locksmith.jdbc.internal.LockTableSql;
import dev.locksmith.jdbc.internal.SqlDialect;
import dev.locksmith.jdbc.internal.SweepSchedule;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * A lock store on a SQL table (H2, PostgreSQL, MySQL/MariaDB), over a {@link DataSource}.
 *
 * <pre>{@code
 * JdbcLockStore store = new JdbcLockStore(dataSource, JdbcLockStoreOptions.defaults());
 * try (LockClient client = LockClient.of(store, LockOptions.defaults())) { … }
 * }</pre>
 *
 * <p>Each held lock is one row {@code (name, kind, owner, holds, version, expires_at)}, and a lock
 * that nobody holds has none: acquiring inserts or takes over the row in one statement (H2,
 * PostgreSQL, MariaDB), releasing deletes it, and a background sweep deletes the rows of holds that
 * ended without a release once their lease ran out. The fencing token ({@code version}) is drawn
 * from a sequence per lock table ({@code <table>_seq}; a one-row counter table on MySQL, which has
 * no sequences), always while the acquiring statement holds the row's lock (on PostgreSQL, a lock
 * on the name), so tokens rise across holders although rows come and go, and survive a restart of a
 * durable database. Expiry is judged on the database's clock, never the client's. Read holds of
 * read-write locks live in a second table and are changed in short transactions that row-lock the
 * lock's writer row; no transaction or row lock is ever held between store calls.
 *
 * <p>A non-empty key prefix is joined to each name with U+001F, which neither a prefix nor a name
 * may contain, so two different (prefix, name) pairs never share a row.
 *
 * <p>Every operation runs on a connection of its own from the data source, in auto-commit, so a
 * lock is neither part of nor undone by a transaction the caller has open (a Spring transaction
 * bound to the same data source included). Operations throw Spring's {@link DataAccessException}s,
 * with the driver's {@link SQLException} as cause; a {@code LockClient} reports them as {@code
 * LockStoreException} of the kind {@link #classify} names.
 */
public final class JdbcLockStore implements LockStore {

  private static final Set<Capability> DURABLE =
      Set.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);
  private static final Set<Capability> VOLATILE = Set.of(Capability.FENCING, Capability.REENTRANCY);

  private static final String EXCLUSIVE = "X";
  // Joins a non-empty key prefix and a name (see rowName).
  private static final String WRITER = "W";
  // Optimistic loops retry this often when the row keeps changing under them.
  private static final int ATTEMPTS = 16;

  // The most batches one background sweep deletes before it leaves the rest to the next sweep.
  private static final int SWEEP_BATCHES = 20;
  private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

  private final JdbcLockStoreOptions options;
  private final LockDatabase db;
  private final LockTableSql sql;
  private final String table;
  private final String sequence;
  private final Set<Capability> capabilities;
  private final AutoCloseable sweeping;
  private volatile boolean sweepFailing;

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
    this(dataSource, options, ownedPool, null);
  }

  /**
   * A store that uses {@code dialect}'s statements whatever the database says it is, if not null:
   * for tests that run MySQL's statements on MariaDB, which accepts them too.
   */
  JdbcLockStore(
      DataSource dataSource,
      JdbcLockStoreOptions options,
      @Nullable AutoCloseable ownedPool,
      @Nullable SqlDialect dialect) {
    Objects.requireNonNull(dataSource, "dataSource must not be null");
    this.options = Objects.requireNonNull(options, "options must not be null");
    String schema = options.schema().map(name -> name + ".").orElse("");
    this.table = schema + options.table();
    this.sequence = schema + options.sequence();
    String readers = schema + options.readersTable();
    try {
      this.db = new LockDatabase(dataSource, options.queryTimeout(), ownedPool, dialect);
      this.sql = new LockTableSql(db.dialect(), table, readers, sequence);
      if (options.createTable()) {
        createTables(db.dialect().ddl(table, readers, sequence));
      }
      this.capabilities = db.keepsRows() ? DURABLE : VOLATILE;
    } catch (DataAccessException e) {
      throw new LockStoreException(
          "jdbc: cannot open the lock table " + table + ": " + LockDatabase.reason(e), e);
    }
    this.sweeping = SweepSchedule.every(options.sweepInterval(), this::sweep);
  }

  /**
   * Creates the tables if missing, and the token sequence if missing: starting above every version
   * in the table, so that a table of an earlier version (whose rows kept their versions as tokens)
   * never sees a token again that it handed out before. The greatest version is read only when the
   * sequence is missing. Clients that create it at once race harmlessly: {@code CREATE … IF NOT
   * EXISTS} never changes a sequence that exists, so the first one stands (and a client that read
   * the table later would only have started higher); a creation that fails because another client
   * created the sequence meanwhile is ignored once the sequence is there.
   */
  private void createTables(SqlDialect.Ddl ddl) {
    db.operation(
        s -> {
          s.execute(ddl.tables());
          return null;
        });
    if (tokenSourceReady()) {
      return;
    }
    long start = db.operation(s -> Objects.requireNonNull(s.queryLong(sql.firstToken)));
    try {
      db.operation(
          s -> {
            s.execute(ddl.tokenSource(start));
            return null;
          });
    } catch (DataAccessException e) {
      if (!tokenSourceReady()) {
        throw e;
      }
    }
  }

  /** Whether a token can be drawn (one is drawn and dropped: tokens need not be consecutive). */
  private boolean tokenSourceReady() {
    try {
      db.operation(this::drawToken);
      return true;
    } catch (DataAccessException e) {
      return false;
    }
  }

  /** The dialect detected from the connection, such as {@code postgresql}. */
  public String dialect() {
    return db.dialect().id();
  }

  /** The lock table's name, with its schema if one was set. */
  public String table() {
    return table;
  }

  /**
   * The source of the fencing tokens, with its schema if one was set: a sequence, or on MySQL a
   * one-row counter table.
   */
  public String sequence() {
    return sequence;
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
    return switch (key.mode()) {
      case EXCLUSIVE -> db.operation(s -> release(s, sql.release, name, EXCLUSIVE, owner));
      case WRITE -> db.operation(s -> release(s, sql.writerRelease, name, WRITER, owner));
      case READ ->
          db.operation(
              s ->
                  underWriterRow(
                      s,
                      name,
                      w -> {
                        // Under the writer row's lock, so that a reader's hold count only changes
                        // there; the writer row goes with the last reader unless a writer waits.
                        ReleaseOutcome outcome = release(s, sql.readerRelease, name, owner);
                        s.update(sql.dropIdleWriter, name, 0L, 0L);
                        return outcome;
                      }));
    };
  }

  @Override
  public LockState read(LockKey key) {
    String name = rowName(key);
    return db.operation(
        s -> {
          LockRow row = s.queryFirst(sql.selectRow, LockRow.MAPPER, name, kind(key));
          if (row != null && row.live()) {
            return LockState.heldBy(
                Objects.requireNonNull(row.owner()), row.holds(), row.remaining());
          }
          if (key.mode() == LockMode.EXCLUSIVE) {
            return LockState.FREE;
          }
          long readers = count(s, sql.countReaders, name);
          return readers > 0 ? LockState.heldByReaders((int) readers) : LockState.FREE;
        });
  }

  /**
   * Removes a writer's waiting mark, and the writer row with it if nothing else needs it (the
   * readers it waited for left meanwhile).
   */
  private void withdraw(LockKey key, String owner) {
    if (key.mode() == LockMode.WRITE) {
      String name = rowName(key);
      db.operation(
          s ->
              s.update(sql.withdraw, name, WRITER, owner) == 1
                  ? s.update(sql.dropIdleWriter, name, 0L, 0L)
                  : 0);
    }
  }

  /**
   * Deletes the rows of locks that nobody has held for longer than {@code idleFor}: holds whose
   * lease ran out that long ago without a release, and read-write locks with no reader and no
   * waiting writer. The store's background sweep does the same every {@link
   * JdbcLockStoreOptions#sweepInterval()} with an age of zero; this is for a table of an earlier
   * version, whose released locks kept their rows, or for a sweep on demand. Tokens keep rising for
   * the names it deletes: they come from the sequence, not from the rows.
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
    return purge(idleFor.toMillis(), Integer.MAX_VALUE);
  }

  /**
   * Deletes rows idle for more than {@code age} ms, in batches of {@link LockTableSql#SWEEP_BATCH}
   * rows per statement (so that no statement holds many row locks for long), at most {@code
   * maxBatches} per kind of row.
   */
  private int purge(long age, int maxBatches) {
    SqlDialect dialect = db.dialect();
    return db.operation(
        s ->
            s.readCommitted(
                () ->
                    deleteInBatches(s, dialect, sql.sweepReaders, new Object[] {age}, maxBatches)
                        + deleteInBatches(
                            s, dialect, sql.sweepWriters, new Object[] {age, age}, maxBatches)
                        + deleteInBatches(
                            s, dialect, sql.sweepLocks, new Object[] {age}, maxBatches)));
  }

  private static int deleteInBatches(
      Statements s, SqlDialect dialect, String delete, Object[] condition, int maxBatches) {
    Object[] args = dialect.limitedDeleteArgs(condition, LockTableSql.SWEEP_BATCH);
    int total = 0;
    for (int batch = 0; batch < maxBatches; batch++) {
      int deleted = s.update(delete, args);
      total += deleted;
      if (deleted < LockTableSql.SWEEP_BATCH) {
        break;
      }
    }
    return total;
  }

  /**
   * The background sweep: rows of holds that ended without a release (a crashed or cut-off
   * holder's) once their lease ran out on the database clock, and idle read-write rows. A failure
   * is logged once (then at debug level until a sweep succeeds again); the next sweep tries again.
   */
  private void sweep() {
    try {
      int deleted = purge(0, SWEEP_BATCHES);
      if (sweepFailing) {
        sweepFailing = false;
        log.info("jdbc: the sweep of {} works again", table);
      }
      if (deleted > 0) {
        log.debug("jdbc: the sweep of {} deleted {} rows of ended holds", table, deleted);
      }
    } catch (RuntimeException e) {
      if (db.isClosed()) {
        return; // closed while sweeping
      }
      String reason = e instanceof DataAccessException d ? LockDatabase.reason(d) : e.toString();
      if (sweepFailing) {
        log.debug("jdbc: the sweep of {} failed again: {}", table, reason);
      } else {
        sweepFailing = true;
        log.warn(
            "jdbc: the sweep of {} failed (it tries again every {}): {}",
            table,
            options.sweepInterval(),
            reason);
      }
    }
  }

  /**
   * Names the kind of {@code failure} from its most specific cause: Spring's translation, the
   * driver's exception class or SQLSTATE, or the JDK's network exceptions.
   */
  @Override
  public StoreFailure classify(Exception failure) {
    return LockDatabase.failureKind(failure);
  }

  /**
   * Stops the store and its sweep; closes its pool if it opened one (from a URI), never the
   * caller's.
   */
  @Override
  public void close() {
    try {
      sweeping.close();
    } catch (Exception e) {
      // Stopping the schedule cannot fail; close() declares it only as an AutoCloseable.
    }
    db.close();
  }

  @Override
  public String toString() {
    return "JdbcLockStore{" + describe() + ", table=" + table + "}";
  }

  // The operations.

  private Acquisition acquireExclusive(Statements s, String name, String owner, long lease) {
    return switch (db.dialect()) {
      case POSTGRESQL -> {
        long[] taken = s.queryLongs(sql.acquire, name, name, owner, lease);
        yield taken != null ? Acquisition.acquired(taken[0], (int) taken[1]) : Acquisition.busy();
      }
      case MARIADB -> {
        LockRow after = s.queryLast(sql.acquire, LockRow.WRITTEN, name, name, owner, lease);
        yield heldBy(owner, after);
      }
      case H2 -> acquireMerging(s, name, owner, lease);
      case MYSQL -> acquireStamping(s, name, owner, lease);
    };
  }

  /** The answer for the row an acquire by {@code owner} left: held by the owner, or busy. */
  private static Acquisition heldBy(String owner, @Nullable LockRow row) {
    if (row != null && owner.equals(row.owner())) {
      return Acquisition.acquired(row.version(), row.holds());
    }
    return row != null && row.live() ? Acquisition.busy(row.remaining()) : Acquisition.busy();
  }

  /**
   * H2: the MERGE returns the rows it wrote. If it wrote none, the lock is busy or its row vanished
   * (or freed) between the MERGE's two steps; a read tells which, and the MERGE runs again in the
   * second case. A duplicate key means a concurrent acquire inserted the row first: again too.
   */
  private Acquisition acquireMerging(Statements s, String name, String owner, long lease) {
    for (int i = 0; i < ATTEMPTS; i++) {
      LockRow written;
      try {
        written =
            s.queryLast(
                sql.acquire, LockRow.WRITTEN, name, name, owner, owner, owner, owner, lease);
      } catch (DuplicateKeyException e) {
        continue;
      }
      if (written != null && owner.equals(written.owner())) {
        return Acquisition.acquired(written.version(), written.holds());
      }
      LockRow row = s.queryFirst(sql.selectRow, LockRow.MAPPER, name, EXCLUSIVE);
      if (row != null && row.live() && !owner.equals(row.owner())) {
        return Acquisition.busy(row.remaining());
      }
    }
    return Acquisition.busy();
  }

  /**
   * MySQL: the upsert takes or re-enters the row (3 rows found) or finds it busy (2); a new hold
   * has token 0 until a token drawn after the upsert is stamped on it. Drawing after the hold began
   * orders the draw after every earlier holder's, whose hold ended before this one began. A hold
   * that already had a token (a re-entry) keeps it: the stamp finds no token-less row.
   */
  private Acquisition acquireStamping(Statements s, String name, String owner, long lease) {
    int found = s.update(sql.acquire, name, name, owner, lease);
    if (found < 3) {
      return Acquisition.busy();
    }
    long token = drawToken(s);
    if (s.update(Objects.requireNonNull(sql.stampToken), token, name, owner) == 1) {
      return Acquisition.acquired(token, 1);
    }
    LockRow row = s.queryFirst(sql.selectRow, LockRow.MAPPER, name, EXCLUSIVE);
    return row != null && row.live() && owner.equals(row.owner())
        ? Acquisition.acquired(row.version(), row.holds())
        : Acquisition.busy();
  }

  /**
   * Draws a fencing token. Callers hold the lock row's lock (or, on MySQL, already hold the lock),
   * so that every earlier holder of the name drew its token before.
   */
  private long drawToken(Statements s) {
    if (db.dialect().hasSequences()) {
      return Objects.requireNonNull(s.queryLong(sql.drawToken), "the sequence gave no value");
    }
    long[] drawn = s.updateForKey(sql.drawToken);
    if (drawn[0] != 1) {
      throw new InvalidDataAccessResourceUsageException(
          "jdbc lock store: the token counter " + sequence + " has no row (id 1)");
    }
    if (drawn[1] > 0) {
      return drawn[1];
    }
    // A driver that does not report LAST_INSERT_ID(expr) as a generated key.
    return Objects.requireNonNull(s.queryLong("SELECT LAST_INSERT_ID()"));
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
    long token = drawToken(s);
    s.update(sql.writerTake, owner, token, lease, owner, name, WRITER);
    return Acquisition.acquired(token, 1);
  }

  private void markWaiting(Statements s, LockRow w, String name, String owner, long lease) {
    if (!w.writerWaitsBesides(owner)) {
      s.update(sql.writerWait, owner, lease, name, WRITER);
    }
  }

  /**
   * A reader's token is the writer row's: at least the token of every writer before it. A writer
   * row made for a reader has none yet (version 0) and gets one drawn now, under its lock, since a
   * writer may have held the name (and its row been deleted) before.
   */
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
    long token = w.version();
    if (token == 0) {
      token = drawToken(s);
      s.update(sql.setWriterToken, token, name, WRITER);
    }
    if (mine != null) {
      s.update(sql.deleteReader, name, owner);
    }
    s.update(sql.insertReader, name, owner, lease);
    return Acquisition.acquired(token, 1);
  }

  /**
   * Runs {@code body} in a short transaction that holds the row lock of the writer row of {@code
   * name}, which serialises every change to that read-write lock. The row is created first (in
   * auto-commit, outside the transaction) if missing: creating it inside would make two InnoDB
   * transactions deadlock on the gap lock of the row that is not there yet. A row deleted between
   * the two (released, or swept) is created again.
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
   * Releases one hold: the common last hold first (deleting the row, or where the row must stay,
   * freeing it), then a nested one; if none matched, checks whether the owner holds it at all (a
   * concurrent change of the same owner's holds retries).
   */
  private ReleaseOutcome release(
      Statements s, LockTableSql.HoldRelease statements, Object... args) {
    for (int i = 0; i < ATTEMPTS; i++) {
      if (s.update(statements.last(), args) == 1) {
        return ReleaseOutcome.RELEASED;
      }
      if (statements.lastKeeping() != null && s.update(statements.lastKeeping(), args) == 1) {
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

  /**
   * The row's name: {@link LockKey#nameUnder}, so that two different (prefix, name) pairs never
   * give one row, as plain concatenation did ("a" + "bc" and "ab" + "c"). Without a prefix it is
   * the caller's own String: a new one per call would make H2's statement cache compare bytes and
   * hash again instead of checking identity.
   */
  private String rowName(LockKey key) {
    return key.nameUnder(options.keyPrefix());
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
