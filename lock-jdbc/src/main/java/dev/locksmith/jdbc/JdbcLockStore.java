package dev.locksmith.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.jdbc.internal.LockTableSql;
import dev.locksmith.jdbc.internal.SqlDialect;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
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
 * <p>Every operation takes its own connection from the data source and runs in auto-commit, so a
 * lock is neither part of nor undone by a transaction the caller has open (a Spring transaction
 * bound to the same data source included). Every failure — no connection, a timeout, an SQL error —
 * is thrown as {@link LockStoreException} with the driver's exception as cause.
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

  private final DataSource dataSource;
  private final JdbcLockStoreOptions options;
  private final @Nullable AutoCloseable ownedPool;
  private final SqlDialect dialect;
  private final LockTableSql sql;
  private final String table;
  private final int queryTimeoutSeconds;
  // The physical connections whose session-wide query timeout this store has set (dialects with
  // sessionWideQueryTimeout() only); weak, so that connections the pool drops are forgotten.
  private final Set<Connection> sessionTimeoutSet =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
  private final Set<Capability> capabilities;
  private volatile boolean closed;

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
    this.dataSource = unwrap(dataSource);
    this.ownedPool = ownedPool;
    this.queryTimeoutSeconds = (int) Math.max(1, (options.queryTimeout().toMillis() + 999) / 1000);
    String schema = options.schema().map(s -> s + ".").orElse("");
    this.table = schema + options.table();
    try (Connection c = this.dataSource.getConnection()) {
      this.dialect = SqlDialect.detect(c.getMetaData());
      if (options.createTable()) {
        createTables(c, schema + options.readersTable());
      }
      this.capabilities = persistent(c) ? DURABLE : VOLATILE;
    } catch (SQLException e) {
      throw new LockStoreException(
          "jdbc: cannot open the lock table " + table + ": " + e.getMessage(), e);
    }
    this.sql = new LockTableSql(dialect, table, schema + options.readersTable());
  }

  /**
   * Whether the database keeps its rows when it closes: an in-memory H2 database forgets them, and
   * with them the row versions that are the fencing tokens, so it cannot promise durable fencing.
   */
  private boolean persistent(Connection c) throws SQLException {
    if (!dialect.id().equals("h2")) {
      return true;
    }
    try (Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT DATABASE_PATH()")) {
      // H2 answers NULL for an in-memory database, the file path for a persistent one.
      return rs.next() && rs.getString(1) != null;
    }
  }

  private static DataSource unwrap(DataSource dataSource) {
    // A transaction-aware proxy hands out the caller's transactional connection: a lock taken
    // through it would vanish with a rollback and stay invisible to others until commit.
    if (dataSource instanceof TransactionAwareDataSourceProxy) {
      DataSource target = ((TransactionAwareDataSourceProxy) dataSource).getTargetDataSource();
      if (target != null) {
        return target;
      }
    }
    return dataSource;
  }

  private void createTables(Connection c, String readers) throws SQLException {
    String ddl;
    try (InputStream in = JdbcLockStore.class.getResourceAsStream(dialect.ddlResource())) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + dialect.ddlResource());
      }
      ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + dialect.ddlResource(), e);
    }
    ddl =
        ddl.replaceAll("(?m)^--.*$", "").replace("${table}", table).replace("${readers}", readers);
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(true);
    try (Statement st = c.createStatement()) {
      st.setQueryTimeout(queryTimeoutSeconds);
      for (String statement : ddl.split(";")) {
        if (!statement.isBlank()) {
          st.execute(statement.strip());
        }
      }
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /** The dialect detected from the connection, such as {@code postgresql}. */
  public String dialect() {
    return dialect.id();
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
    return "jdbc/" + dialect.id();
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
    return withConnection(
        "acquire",
        key,
        c -> {
          switch (key.mode()) {
            case EXCLUSIVE:
              return acquireExclusive(c, name, owner, lease);
            case WRITE:
              return underWriterRow(c, name, w -> acquireWrite(c, w, name, owner, lease));
            default:
              return underWriterRow(c, name, w -> acquireRead(c, w, name, owner, lease));
          }
        });
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    String name = rowName(key);
    long lease = leaseMillis(leaseTime);
    return withConnection(
        "extend",
        key,
        c ->
            key.mode() == LockMode.READ
                ? update(c, sql.readerExtend, lease, name, owner) == 1
                : update(c, sql.extend, lease, name, kind(key), owner) == 1);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    String name = rowName(key);
    return withConnection(
        "release",
        key,
        c -> {
          if (key.mode() != LockMode.READ) {
            return release(
                c, sql.releaseLast, sql.releaseNested, sql.countHeld, name, kind(key), owner);
          }
          // Under the writer row's lock, so that a reader's hold count only changes there.
          return underWriterRow(
              c,
              name,
              w -> {
                return release(
                    c,
                    sql.readerReleaseLast,
                    sql.readerReleaseNested,
                    sql.readerCountHeld,
                    name,
                    owner);
              });
        });
  }

  @Override
  public LockState read(LockKey key) {
    String name = rowName(key);
    return withConnection(
        "read",
        key,
        c -> {
          Row row = queryRow(c, sql.selectRow, name, kind(key));
          if (row != null && row.live()) {
            return new LockState(true, row.owner, row.holds, row.remaining());
          }
          if (key.mode() == LockMode.EXCLUSIVE) {
            return LockState.FREE;
          }
          long readers = queryLong(c, sql.countReaders, name);
          return readers > 0 ? new LockState(true, null, (int) readers, null) : LockState.FREE;
        });
  }

  private void withdraw(LockKey key, String owner) {
    if (key.mode() != LockMode.WRITE) {
      return;
    }
    String name = rowName(key);
    withConnection("withdraw", key, c -> update(c, sql.withdraw, name, WRITER, owner));
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
   * @throws LockStoreException if the database fails
   */
  public int purgeIdle(Duration idleFor) {
    Objects.requireNonNull(idleFor, "idleFor must not be null");
    if (idleFor.isNegative()) {
      throw new IllegalArgumentException("idleFor must not be negative, was " + idleFor);
    }
    long age = idleFor.toMillis();
    return withConnection(
        "purge", null, c -> update(c, sql.purgeLocks, age, age) + update(c, sql.purgeReaders, age));
  }

  @Override
  public void close() {
    closed = true;
    if (ownedPool != null) {
      try {
        ownedPool.close();
      } catch (Exception e) {
        throw new LockStoreException("jdbc: closing the connection pool failed", e);
      }
    }
  }

  @Override
  public String toString() {
    return "JdbcLockStore{" + describe() + ", table=" + table + "}";
  }

  // The operations, on one connection.

  private Acquisition acquireExclusive(Connection c, String name, String owner, long lease)
      throws SQLException {
    if (sql.acquireReturning != null) {
      // One statement in the steady state: the guarded UPDATE must hand back version and holds
      // (token, nested count) from the row it wrote, atomically; a separate read would add a
      // statement and could see the row after a short lease expired. The INSERT below runs only
      // for a name never seen (or a busy lock), since rows are never deleted.
      long[] result =
          queryLongs(c, sql.acquireReturning, owner, owner, owner, lease, name, EXCLUSIVE, owner);
      if (result != null) {
        return Acquisition.acquired(result[0], (int) result[1]);
      }
      // No row matched: the name is new, or someone else holds it.
      return insert(c, sql.insertHeld, name, EXCLUSIVE, owner, lease)
          ? Acquisition.acquired(1, 1)
          : Acquisition.busy();
    }
    // Optimistic (no UPDATE … RETURNING): read the row, then write it back guarded by the version
    // (and holds) we read. Two statements are the least here: the read yields the token and holds
    // that the UPDATE cannot return, and the version guard makes the pair atomic.
    for (int i = 0; i < ATTEMPTS; i++) {
      Row row = queryRow(c, sql.selectRow, name, EXCLUSIVE);
      if (row == null) {
        if (insert(c, sql.insertHeld, name, EXCLUSIVE, owner, lease)) {
          return Acquisition.acquired(1, 1);
        }
      } else if (row.live()) {
        if (!owner.equals(row.owner)) {
          return Acquisition.busy(row.remaining());
        }
        if (update(c, sql.reenterGuarded, lease, name, EXCLUSIVE, owner, row.version, row.holds)
            == 1) {
          return Acquisition.acquired(row.version, row.holds + 1);
        }
      } else if (update(c, sql.takeGuarded, owner, lease, name, EXCLUSIVE, row.version) == 1) {
        return Acquisition.acquired(row.version + 1, 1);
      }
    }
    return Acquisition.busy();
  }

  private Acquisition acquireWrite(Connection c, Row w, String name, String owner, long lease)
      throws SQLException {
    if (w.live()) {
      if (owner.equals(w.owner)) {
        update(c, sql.writerReenter, lease, name, WRITER);
        return Acquisition.acquired(w.version, w.holds + 1);
      }
      markWaiting(c, w, name, owner, lease);
      return Acquisition.busy(w.remaining());
    }
    Long latestReader = queryNullableLong(c, sql.latestReaderExpiry, name);
    if (latestReader != null) {
      // Readers hold it: keep new readers out until this writer gets in or withdraws.
      markWaiting(c, w, name, owner, lease);
      return Acquisition.busy(Duration.ofMillis(Math.max(1, latestReader - w.now)));
    }
    update(c, sql.writerTake, owner, lease, owner, name, WRITER);
    return Acquisition.acquired(w.version + 1, 1);
  }

  private void markWaiting(Connection c, Row w, String name, String owner, long lease)
      throws SQLException {
    boolean slotTaken = w.waitingOwner != null && w.waitingUntil > w.now;
    if (!slotTaken || owner.equals(w.waitingOwner)) {
      update(c, sql.writerWait, owner, lease, name, WRITER);
    }
  }

  private Acquisition acquireRead(Connection c, Row w, String name, String owner, long lease)
      throws SQLException {
    if (w.live() && !owner.equals(w.owner)) {
      return Acquisition.busy(w.remaining());
    }
    long[] mine = queryLongs(c, sql.selectReader, name, owner);
    boolean mineLive = mine != null && mine[1] > w.now;
    if (mineLive) {
      update(c, sql.readerReenter, lease, name, owner);
      return Acquisition.acquired(w.version, (int) mine[0] + 1);
    }
    boolean writerWaits =
        w.waitingOwner != null && w.waitingUntil > w.now && !owner.equals(w.waitingOwner);
    if (writerWaits) {
      return Acquisition.busy();
    }
    if (mine != null) {
      update(c, sql.deleteReader, name, owner);
    }
    update(c, sql.insertReader, name, owner, lease);
    return Acquisition.acquired(w.version, 1);
  }

  /**
   * Runs {@code body} in a short transaction that holds the row lock of the writer row of {@code
   * name}, which serialises every change to that read-write lock. The row is created first (in
   * auto-commit, outside the transaction) if missing: creating it inside would make two InnoDB
   * transactions deadlock on the gap lock of the row that is not there yet. A deadlock or
   * serialisation failure is retried.
   */
  private <T> T underWriterRow(Connection c, String name, RowWork<T> body) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        T result =
            inTransaction(
                c,
                () -> {
                  Row w = queryRow(c, sql.selectRowForUpdate, name, WRITER);
                  return w == null ? null : body.run(w);
                });
        if (result != null) {
          return result;
        }
        if (attempt >= ATTEMPTS) {
          throw new SQLException("the writer row of '" + name + "' keeps vanishing");
        }
        insert(c, sql.insertFreeWriter, name, WRITER);
      } catch (SQLException e) {
        if (attempt >= ATTEMPTS || !isDeadlock(e)) {
          throw e;
        }
      }
    }
  }

  private static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state);
  }

  /**
   * Releases one hold: the common last hold first, then a nested one; if neither matched, checks
   * whether the owner holds it at all (a concurrent change of the same owner's holds retries).
   */
  private ReleaseOutcome release(
      Connection c, String last, String nested, String count, Object... args) throws SQLException {
    for (int i = 0; i < ATTEMPTS; i++) {
      if (update(c, last, args) == 1) {
        return ReleaseOutcome.RELEASED;
      }
      if (update(c, nested, args) == 1) {
        return ReleaseOutcome.HOLD_DECREMENTED;
      }
      if (queryLong(c, count, args) == 0) {
        return ReleaseOutcome.NOT_HELD;
      }
    }
    throw new SQLException("the hold kept changing during release; outcome unknown");
  }

  // JDBC plumbing.

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  @FunctionalInterface
  private interface TxWork<T> {
    @Nullable T run() throws SQLException;
  }

  @FunctionalInterface
  private interface RowWork<T> {
    T run(Row writerRow) throws SQLException;
  }

  private <T> T withConnection(String operation, @Nullable LockKey key, Work<T> work) {
    if (closed) {
      throw new IllegalStateException("this JDBC lock store is closed");
    }
    try (Connection c = dataSource.getConnection()) {
      try {
        if (dialect.sessionWideQueryTimeout()) {
          setSessionQueryTimeout(c);
        }
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
          c.setAutoCommit(true);
        }
        try {
          return work.run(c);
        } finally {
          if (!autoCommit) {
            c.setAutoCommit(false);
          }
        }
      } catch (SQLException e) {
        if (connectionLost(e)) {
          evictFromPool(c);
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new LockStoreException(
          describeSafely()
              + ": "
              + operation
              + (key != null ? " of lock '" + key + "'" : "")
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Whether {@code e} says the connection itself is gone (SQLSTATE class 08, or the JDBC class for
   * it). H2 reports a broken or closed remote session as {@link SQLNonTransientConnectionException}
   * with its own codes (90067, 90121), which HikariCP does not recognize as broken.
   */
  private static boolean connectionLost(SQLException e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < 10; depth++) {
      if (t instanceof SQLNonTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException) {
        String state = ((SQLException) t).getSQLState();
        if (state != null && state.startsWith("08")) {
          return true;
        }
        SQLException next = ((SQLException) t).getNextException();
        t = next != null ? next : t.getCause();
      } else {
        t = t.getCause();
      }
    }
    return false;
  }

  /**
   * Drops a dead connection from a HikariCP pool (ours, or the caller's) before it goes back:
   * otherwise a pool that does not know the driver's error codes hands the dead connection out
   * again, and validates it only after it sat idle, which a client that keeps polling never lets
   * happen, so the store would never recover by itself. Other pools validate as they do.
   */
  private void evictFromPool(Connection c) {
    try {
      if (dataSource.isWrapperFor(HikariDataSource.class)) {
        dataSource.unwrap(HikariDataSource.class).evictConnection(c);
      }
    } catch (SQLException | RuntimeException ignored) {
      // The pool validates the connection before it lends it again after an idle spell.
    }
  }

  /**
   * Sets the statement timeout of {@code c}'s session once per physical connection, for drivers
   * where a per-statement timeout is a session-wide {@code SET} that would make the database parse
   * every following statement again (see {@link SqlDialect#sessionWideQueryTimeout()}). The pooled
   * proxy is unwrapped to the driver's connection, which is the session.
   */
  private void setSessionQueryTimeout(Connection c) throws SQLException {
    Connection physical = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
    if (sessionTimeoutSet.contains(physical)) {
      return;
    }
    try (Statement st = c.createStatement()) {
      st.setQueryTimeout(queryTimeoutSeconds);
    }
    sessionTimeoutSet.add(physical);
  }

  private String describeSafely() {
    return "jdbc/" + dialect.id();
  }

  private static <T> @Nullable T inTransaction(Connection c, TxWork<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private PreparedStatement prepare(Connection c, String statement, Object[] args)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(statement);
    try {
      if (!dialect.sessionWideQueryTimeout()) {
        ps.setQueryTimeout(queryTimeoutSeconds);
      }
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      return ps;
    } catch (SQLException e) {
      ps.close();
      throw e;
    }
  }

  private int update(Connection c, String statement, Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, args)) {
      return ps.executeUpdate();
    }
  }

  /** Runs an INSERT; false if the row already existed. */
  private boolean insert(Connection c, String statement, Object... args) throws SQLException {
    try {
      return update(c, statement, args) == 1;
    } catch (SQLException e) {
      if (e instanceof SQLIntegrityConstraintViolationException
          || (e.getSQLState() != null && e.getSQLState().startsWith("23"))) {
        return false;
      }
      throw e;
    }
  }

  private long @Nullable [] queryLongs(Connection c, String statement, Object... args)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, args);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      long[] values = new long[rs.getMetaData().getColumnCount()];
      for (int i = 0; i < values.length; i++) {
        values[i] = rs.getLong(i + 1);
      }
      return values;
    }
  }

  private @Nullable Long queryNullableLong(Connection c, String statement, Object... args)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, args);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      long value = rs.getLong(1);
      return rs.wasNull() ? null : value;
    }
  }

  private long queryLong(Connection c, String statement, Object... args) throws SQLException {
    Long value = queryNullableLong(c, statement, args);
    return value == null ? 0 : value;
  }

  private @Nullable Row queryRow(Connection c, String statement, Object... args)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, args);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return new Row(
          rs.getString(1),
          rs.getInt(2),
          rs.getLong(3),
          rs.getLong(4),
          rs.getString(5),
          rs.getLong(6),
          rs.getLong(7));
    }
  }

  private String rowName(LockKey key) {
    return options.keyPrefix() + key.name();
  }

  private static String kind(LockKey key) {
    return key.mode() == LockMode.EXCLUSIVE ? EXCLUSIVE : WRITER;
  }

  /**
   * The lease in whole milliseconds, rounded up, plus one: the database clock is read truncated to
   * the millisecond, and the store must hold at least as long as asked.
   */
  private static long leaseMillis(Duration leaseTime) {
    long millis = leaseTime.toMillis();
    if (leaseTime.minusMillis(millis).isZero()) {
      return millis + 1;
    }
    return millis + 2;
  }

  /** A lock row as read, with the database clock's now at the time of reading. */
  private static final class Row {
    final @Nullable String owner;
    final int holds;
    final long version;
    final long expiresAt;
    final @Nullable String waitingOwner;
    final long waitingUntil;
    final long now;

    Row(
        @Nullable String owner,
        int holds,
        long version,
        long expiresAt,
        @Nullable String waitingOwner,
        long waitingUntil,
        long now) {
      this.owner = owner;
      this.holds = holds;
      this.version = version;
      this.expiresAt = expiresAt;
      this.waitingOwner = waitingOwner;
      this.waitingUntil = waitingUntil;
      this.now = now;
    }

    boolean live() {
      return owner != null && expiresAt > now;
    }

    Duration remaining() {
      return Duration.ofMillis(Math.max(0, expiresAt - now));
    }
  }
}
