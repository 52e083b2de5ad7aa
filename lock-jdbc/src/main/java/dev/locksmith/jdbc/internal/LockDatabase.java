package dev.locksmith.jdbc.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.StoreFailure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.PermissionDeniedDataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The database of the lock tables as the JDBC store uses it: each {@linkplain #operation operation}
 * on one connection of its own from the data source, in auto-commit, its {@link Statements} run on
 * that connection, and {@linkplain Statements#transaction short transactions} on it where an
 * operation needs row locks.
 *
 * <p>A lock is never part of a transaction the caller has open: the operation's connection is
 * borrowed from the data source itself, never the one a Spring transaction has bound to the thread
 * (a {@link TransactionAwareDataSourceProxy}, which would hand that one out, is unwrapped first),
 * so a rollback cannot undo a lock and others see it at once.
 *
 * <p>Failures are Spring's {@link DataAccessException}s, translated from the driver's {@link
 * SQLException} (kept as cause, with the database's own message). A connection that a failure shows
 * to be dead is evicted from a HikariCP pool.
 */
public final class LockDatabase {

  private static final int TRANSACTION_ATTEMPTS = 16;
  private static final SQLExceptionTranslator SPRING = new SQLExceptionSubclassTranslator();
  private static final Object[] NO_ARGUMENTS = {};

  private final StoreConnections connections;
  private final SqlDialect dialect;
  // Set on each statement, unless the driver's statement timeout is a session setting.
  private final int statementTimeoutSeconds;
  private final @Nullable AutoCloseable ownedPool;
  private volatile boolean closed;

  /**
   * Detects the database behind {@code dataSource}; {@code ownedPool}, if not null, is the pool
   * behind it that {@link #close()} closes.
   *
   * @throws IllegalArgumentException if it is not one of H2, PostgreSQL, MariaDB, MySQL
   * @throws DataAccessException if it cannot be reached
   */
  public LockDatabase(
      DataSource dataSource, Duration queryTimeout, @Nullable AutoCloseable ownedPool) {
    this(dataSource, queryTimeout, ownedPool, null);
  }

  /**
   * As {@link #LockDatabase(DataSource, Duration, AutoCloseable)}, but with {@code dialect} instead
   * of the detected one if not null: for tests that run one dialect's statements on a database that
   * accepts them too (MySQL's on MariaDB).
   */
  public LockDatabase(
      DataSource dataSource,
      Duration queryTimeout,
      @Nullable AutoCloseable ownedPool,
      @Nullable SqlDialect dialect) {
    this.ownedPool = ownedPool;
    int timeoutSeconds = (int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000);
    this.connections = new StoreConnections(unwrap(dataSource));
    SqlDialect detected =
        operation(
            statements -> {
              try {
                return SqlDialect.detect(statements.connection.getMetaData());
              } catch (SQLException e) {
                throw translate("jdbc lock store: reading the database's metadata", e);
              }
            });
    this.dialect = dialect != null ? dialect : detected;
    if (this.dialect.sessionWideQueryTimeout()) {
      connections.sessionTimeoutSeconds = timeoutSeconds;
      this.statementTimeoutSeconds = 0;
    } else {
      this.statementTimeoutSeconds = timeoutSeconds;
    }
  }

  private static DataSource unwrap(DataSource dataSource) {
    if (dataSource instanceof TransactionAwareDataSourceProxy proxy) {
      DataSource target = proxy.getTargetDataSource();
      if (target != null) {
        return target;
      }
    }
    return dataSource;
  }

  /** The dialect of the database. */
  public SqlDialect dialect() {
    return dialect;
  }

  /**
   * Runs {@code work} on one connection of its own from the data source, in auto-commit; the {@link
   * Statements} it is given run on that connection, and only until it returns. The connection is
   * passed rather than kept in a thread-local: the store's calls are a few microseconds on H2, and
   * setting, reading and removing a thread-local for each was a fiftieth of them.
   */
  public <T> T operation(Function<Statements, T> work) {
    if (closed) {
      throw new IllegalStateException("this JDBC lock store is closed");
    }
    Connection c;
    try {
      c = connections.getConnection();
    } catch (SQLException e) {
      // As Spring's DataSourceUtils reports it: the cause says why (a wrong password, a timeout).
      throw new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection", e);
    } catch (IllegalStateException e) {
      throw new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection", e);
    }
    try {
      return work.apply(new Statements(c));
    } catch (RuntimeException e) {
      if (connectionLost(e)) {
        connections.evict(c);
      }
      throw e;
    } finally {
      try {
        c.close();
      } catch (SQLException e) {
        // Returned to the pool, or dropped by it: either way the operation's outcome stands.
      }
    }
  }

  /** The statements of one {@linkplain #operation operation}, on its connection. */
  public final class Statements {

    private final Connection connection;
    // Whether a transaction of this operation is open: its statements are not retried one by one.
    private boolean inTransaction;

    private Statements(Connection connection) {
      this.connection = connection;
    }

    /**
     * Runs {@code work} in a short transaction on the operation's connection and commits it; a
     * deadlock or serialisation failure runs it again, up to 16 times in all.
     */
    public <T> T transaction(Supplier<T> work) {
      for (int attempt = 1; ; attempt++) {
        inTransaction = true;
        try {
          return transactionOnce(connection, work);
        } catch (RuntimeException e) {
          if (attempt >= TRANSACTION_ATTEMPTS || !isDeadlock(e)) {
            throw e;
          }
        } finally {
          inTransaction = false;
        }
      }
    }

    /**
     * Runs {@code work} with the connection at {@code READ COMMITTED} isolation, and puts the
     * previous level back: under InnoDB's default {@code REPEATABLE READ} a DELETE that scans the
     * table locks every row it reads, matching or not, and would hold up every lock operation for
     * as long as it runs.
     */
    public <T> T readCommitted(Supplier<T> work) {
      int previous;
      try {
        previous = connection.getTransactionIsolation();
        if (previous != Connection.TRANSACTION_READ_COMMITTED) {
          connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
      } catch (SQLException e) {
        throw translate("jdbc lock store: setting the isolation level", e);
      }
      try {
        return work.get();
      } finally {
        if (previous != Connection.TRANSACTION_READ_COMMITTED) {
          try {
            connection.setTransactionIsolation(previous);
          } catch (SQLException e) {
            // The pool resets the level of a connection it gets back, or drops a broken one.
          }
        }
      }
    }

    /** Runs an INSERT, UPDATE or DELETE; the number of rows it changed. */
    public int update(String sql, Object... args) {
      return run(sql, args, PreparedStatement::executeUpdate);
    }

    /**
     * Runs {@code sql} once per element of {@code rows} as one JDBC batch (one round trip where the
     * driver sends batches together); the number of rows each run changed, in order. A driver that
     * reports a run only as "succeeded" ({@link Statement#SUCCESS_NO_INFO}) gets the runs again one
     * by one, so every count is exact.
     */
    public int[] updateEach(String sql, List<Object[]> rows) {
      int[] counts =
          run(
              sql,
              new Object[0],
              ps -> {
                for (Object[] row : rows) {
                  bind(ps, sql, row);
                  ps.addBatch();
                }
                return ps.executeBatch();
              });
      if (counts.length == rows.size() && Arrays.stream(counts).allMatch(c -> c >= 0)) {
        return counts;
      }
      int[] exact = new int[rows.size()];
      for (int i = 0; i < exact.length; i++) {
        exact[i] = update(sql, rows.get(i));
      }
      return exact;
    }

    /** Runs an INSERT; false if the row already existed. */
    public boolean insert(String sql, Object... args) {
      try {
        return update(sql, args) == 1;
      } catch (DuplicateKeyException e) {
        return false;
      }
    }

    /** The first row of a query, mapped; null if there is none. */
    public <T> @Nullable T queryFirst(String sql, RowMapper<T> row, Object... args) {
      return run(
          sql,
          args,
          ps -> {
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? row.mapRow(rs, 0) : null;
            }
          });
    }

    /**
     * The last row of a statement that returns rows (a query, or a data change with {@code
     * RETURNING}), mapped; null if there is none.
     */
    public <T> @Nullable T queryLast(String sql, RowMapper<T> row, Object... args) {
      return run(
          sql,
          args,
          ps -> {
            T last = null;
            try (ResultSet rs = ps.executeQuery()) {
              for (int i = 0; rs.next(); i++) {
                last = row.mapRow(rs, i);
              }
            }
            return last;
          });
    }

    /**
     * Runs an UPDATE and returns {@code {rows changed, generated key}}, the key being the value
     * MySQL and MariaDB report for {@code LAST_INSERT_ID(expr)} (0 if none).
     */
    public long[] updateForKey(String sql, Object... args) {
      try (PreparedStatement ps =
          connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
        if (statementTimeoutSeconds > 0) {
          ps.setQueryTimeout(statementTimeoutSeconds);
        }
        bind(ps, sql, args);
        int count = ps.executeUpdate();
        long key = 0;
        try (ResultSet keys = ps.getGeneratedKeys()) {
          if (keys.next()) {
            key = keys.getLong(1);
          }
        }
        return new long[] {count, key};
      } catch (SQLException e) {
        throw translate("jdbc lock store", e);
      }
    }

    /** Runs {@code statements} one after the other (DDL), in auto-commit. */
    public void execute(List<String> statements) {
      for (String statement : statements) {
        run(statement, NO_ARGUMENTS, PreparedStatement::execute);
      }
    }

    /** The first column of the first row of a query; null if there is none or it is NULL. */
    public @Nullable Long queryLong(String sql, Object... args) {
      return queryFirst(
          sql,
          (rs, i) -> {
            long value = rs.getLong(1);
            return rs.wasNull() ? null : value;
          },
          args);
    }

    /** The first two columns of the first row of a query; null if there is none. */
    public long @Nullable [] queryLongs(String sql, Object... args) {
      return queryFirst(sql, (rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)}, args);
    }

    /**
     * Runs one statement on the operation's connection, with {@code args} bound by their types.
     * This is what Spring's {@code JdbcTemplate} does on a connection bound to the thread, less its
     * generality: argument type inference and parameter disposal cost a tenth of an H2 acquire and
     * release (the store's calls alone took 9.2 µs with it, 8.2 µs without), and binding the
     * connection to the thread's transaction resources and looking it up for every statement about
     * a twentieth more. The exception translation stays Spring's.
     */
    /**
     * Runs one statement. Outside a transaction it is a transaction of its own, so when the
     * database ends it as a deadlock victim (InnoDB does so to an auto-commit INSERT or DELETE that
     * meets another transaction's gap lock: seen in the kit's rule 8.6 on MariaDB) it changed
     * nothing and runs again, up to 16 times in all; inside one, {@link #transaction} runs the
     * whole transaction again instead.
     */
    private <T> T run(String sql, Object[] args, StatementWork<T> work) {
      for (int attempt = 1; ; attempt++) {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
          if (statementTimeoutSeconds > 0) {
            ps.setQueryTimeout(statementTimeoutSeconds);
          }
          bind(ps, sql, args);
          return work.apply(ps);
        } catch (SQLException e) {
          if (inTransaction || attempt >= TRANSACTION_ATTEMPTS || !isDeadlock(e)) {
            throw translate("jdbc lock store", e);
          }
        }
      }
    }

    private static void bind(PreparedStatement ps, String sql, Object[] args) throws SQLException {
      for (int i = 0; i < args.length; i++) {
        Object arg = Objects.requireNonNull(args[i], () -> "parameter of " + sql);
        if (arg instanceof String text) {
          ps.setString(i + 1, text);
        } else if (arg instanceof Long number) {
          ps.setLong(i + 1, number);
        } else {
          ps.setObject(i + 1, arg);
        }
      }
    }
  }

  /**
   * One transaction: a failure of {@code work} or of the commit rolls it back, and a rollback that
   * fails too (the connection is gone) does not replace the failure that caused it, which names the
   * reason. The connection is back in auto-commit afterwards.
   */
  private static <T> T transactionOnce(Connection c, Supplier<T> work) {
    try {
      c.setAutoCommit(false);
    } catch (SQLException e) {
      throw translate("jdbc lock store: beginning a transaction", e);
    }
    T result;
    try {
      result = work.get();
      c.commit();
    } catch (SQLException e) {
      throw rollBack(c, translate("jdbc lock store: committing a transaction", e));
    } catch (RuntimeException e) {
      throw rollBack(c, e);
    }
    endTransaction(c);
    return result;
  }

  /** Rolls back the transaction that {@code failure} ended; returns {@code failure}. */
  private static RuntimeException rollBack(Connection c, RuntimeException failure) {
    try {
      c.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
    endTransaction(c);
    return failure;
  }

  private static void endTransaction(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      // The transaction is over either way; the next borrow puts the connection in auto-commit
      // again (StoreConnections), or the pool drops it if it is broken.
    }
  }

  /**
   * Refuses every later operation, and closes the pool given to the constructor, if any.
   *
   * @throws LockStoreException if closing the pool failed
   */
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

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return closed;
  }

  /** What {@link Statements#run} does with the prepared, bound statement. */
  @FunctionalInterface
  private interface StatementWork<T> {
    T apply(PreparedStatement statement) throws SQLException;
  }

  /**
   * Whether the database keeps its rows when it closes: an in-memory H2 database forgets them, and
   * with them the row versions that are the fencing tokens.
   */
  public boolean keepsRows() {
    String probe = dialect.inMemoryProbe();
    return probe == null
        || operation(statements -> statements.queryFirst(probe, (rs, i) -> rs.getString(1)))
            != null;
  }

  /**
   * The causes of {@code failure}, outermost first; an {@link SQLException} without a cause is
   * followed by its next exception, where drivers put the reason of a batch or a broken session.
   */
  public static List<Throwable> causes(Throwable failure) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = failure; t != null && chain.size() < 16 && !chain.contains(t); ) {
      chain.add(t);
      t = t.getCause() == null && t instanceof SQLException s ? s.getNextException() : t.getCause();
    }
    return chain;
  }

  /**
   * The kind of {@code failure}, from its most specific cause that tells one: the driver's own
   * exception class or SQLSTATE (a wrong password is class 28, for which PostgreSQL's driver has no
   * subclass), Spring's translation of it, or the JDK's network exceptions beneath both.
   */
  public static StoreFailure failureKind(Exception failure) {
    List<Throwable> causes = causes(failure);
    for (int i = causes.size() - 1; i >= 0; i--) {
      Throwable t = causes.get(i);
      String state = t instanceof SQLException s && s.getSQLState() != null ? s.getSQLState() : "";
      if (t instanceof PermissionDeniedDataAccessException
          || t instanceof SQLInvalidAuthorizationSpecException
          || state.startsWith("28")) {
        return StoreFailure.REFUSED;
      }
      if (t instanceof QueryTimeoutException
          || t instanceof SQLTimeoutException
          || state.equals("57014")) {
        return StoreFailure.TIMED_OUT;
      }
      if (t instanceof DataAccessResourceFailureException
          || t instanceof SQLTransientConnectionException
          || t instanceof SQLNonTransientConnectionException
          || state.startsWith("08")) {
        return StoreFailure.UNAVAILABLE;
      }
      // Deeper causes were asked first, so this looks at t itself.
      StoreFailure jdk = StoreFailure.of(t);
      if (jdk != StoreFailure.UNCLASSIFIED) {
        return jdk;
      }
    }
    return StoreFailure.UNCLASSIFIED;
  }

  /**
   * What the driver said about {@code failure}: the message of its outermost {@link SQLException},
   * which Spring's wrapper leaves out (a wrong password, a missing table).
   */
  public static String reason(RuntimeException failure) {
    return causes(failure).stream()
        .filter(SQLException.class::isInstance)
        .findFirst()
        .orElse(failure)
        .getMessage();
  }

  /** Whether {@code failure} is a deadlock or serialisation failure, which a retry may avoid. */
  private static boolean isDeadlock(Throwable failure) {
    return causes(failure).stream()
        .anyMatch(
            t ->
                t instanceof SQLException s
                    && ("40001".equals(s.getSQLState()) || "40P01".equals(s.getSQLState())));
  }

  /**
   * Spring's translation (by the driver's exception class, then SQLSTATE), keeping what the
   * database said: Spring's message leaves it out for bad grammar, such as a missing table, and
   * otherwise repeats the whole statement in front of it.
   */
  private static DataAccessException translate(String task, SQLException e) {
    DataAccessException translated = SPRING.translate(task, null, e);
    if (translated == null) {
      return new UncategorizedSQLException(task, null, e);
    }
    if (translated instanceof BadSqlGrammarException) {
      return new InvalidDataAccessResourceUsageException(task + "; " + e.getMessage(), e);
    }
    return translated;
  }

  /**
   * Whether {@code e} says the connection itself is gone (SQLSTATE class 08, or the JDBC class for
   * it). H2 reports a broken or closed remote session as {@link SQLNonTransientConnectionException}
   * with its own codes (90067, 90121), which HikariCP does not recognise as broken.
   */
  private static boolean connectionLost(RuntimeException e) {
    return causes(e).stream()
        .anyMatch(
            t ->
                t instanceof SQLNonTransientConnectionException
                    || (t instanceof SQLException s
                        && s.getSQLState() != null
                        && s.getSQLState().startsWith("08")));
  }

  /**
   * The data source as the store's statements see it: every connection in auto-commit, and, where
   * the driver's statement timeout is a session setting, with it set once per connection.
   */
  private static final class StoreConnections extends DelegatingDataSource {

    // The physical connections whose session-wide query timeout is set; weak, so that connections
    // the pool drops are forgotten.
    private final Set<Connection> sessionTimeoutSet =
        Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private volatile int sessionTimeoutSeconds;

    StoreConnections(DataSource target) {
      super(target);
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = super.getConnection();
      try {
        // Pools reset auto-commit to their own default when a connection comes back.
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        if (sessionTimeoutSeconds > 0) {
          setSessionTimeout(c);
        }
        return c;
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
    }

    /**
     * Sets the statement timeout of {@code c}'s session once per physical connection, for drivers
     * where a per-statement timeout is a session-wide {@code SET} that would make the database
     * parse every following statement again (see {@link SqlDialect#sessionWideQueryTimeout()}). The
     * pooled proxy is unwrapped to the driver's connection, which is the session.
     */
    private void setSessionTimeout(Connection c) throws SQLException {
      Connection physical = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
      if (sessionTimeoutSet.contains(physical)) {
        return;
      }
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout(sessionTimeoutSeconds);
      }
      sessionTimeoutSet.add(physical);
    }

    /**
     * Drops a dead connection from a HikariCP pool (ours, or the caller's) before it goes back:
     * otherwise a pool that does not know the driver's error codes hands the dead connection out
     * again, and validates it only after it sat idle, which a client that keeps polling never lets
     * happen, so the store would never recover by itself. Other pools validate as they do.
     */
    void evict(Connection failed) {
      try {
        if (isWrapperFor(HikariDataSource.class)) {
          unwrap(HikariDataSource.class).evictConnection(failed);
        }
      } catch (SQLException | RuntimeException ignored) {
        // The pool validates the connection before it lends it again after an idle spell.
      }
    }
  }
}
