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
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.core.InfrastructureProxy;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.PermissionDeniedDataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The database of the lock tables as the JDBC store uses it, on spring-jdbc: statements on the
 * connection Spring has bound for the work, each {@linkplain #operation operation} on one
 * connection of its own in auto-commit, and {@linkplain #transaction short transactions} where an
 * operation needs row locks.
 *
 * <p>A lock is never part of a transaction the caller has open: a Spring transaction on the same
 * data source is set aside for the operation (a {@link TransactionAwareDataSourceProxy} is
 * unwrapped first, since it would hand out the transaction's connection), so a rollback cannot undo
 * a lock and others see it at once.
 *
 * <p>Failures are Spring's {@link DataAccessException}s (a {@code TransactionException} for a
 * failed commit) with the driver's {@link SQLException} as cause and the database's own message. A
 * connection that a failure shows to be dead is evicted from a HikariCP pool.
 */
public final class LockDatabase {

  private static final int TRANSACTION_ATTEMPTS = 16;
  private static final SQLExceptionTranslator SPRING = new SQLExceptionSubclassTranslator();
  private static final TransactionDefinition NEW_TRANSACTION =
      new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW);

  private final StoreConnections connections;
  private final JdbcTemplate jdbc;
  private final DataSourceTransactionManager transactions;
  private final TransactionTemplate outsideCallerTransactions;
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
    this.ownedPool = ownedPool;
    int timeoutSeconds = (int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000);
    this.connections = new StoreConnections(unwrap(dataSource));
    this.jdbc = new JdbcTemplate(connections);
    jdbc.setExceptionTranslator(LockDatabase::translate);
    this.transactions = new DataSourceTransactionManager(connections);
    this.outsideCallerTransactions = new TransactionTemplate(transactions);
    outsideCallerTransactions.setPropagationBehavior(
        TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
    this.dialect =
        operation(
            () ->
                jdbc.execute(
                    (ConnectionCallback<SqlDialect>) c -> SqlDialect.detect(c.getMetaData())));
    if (dialect.sessionWideQueryTimeout()) {
      connections.sessionTimeoutSeconds = timeoutSeconds;
      this.statementTimeoutSeconds = 0;
    } else {
      this.statementTimeoutSeconds = timeoutSeconds;
      jdbc.setQueryTimeout(timeoutSeconds);
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
   * Runs {@code work} on one connection of its own, in auto-commit, with any Spring transaction the
   * caller has open on the data source set aside until it returns.
   */
  public <T> T operation(Supplier<T> work) {
    if (closed) {
      throw new IllegalStateException("this JDBC lock store is closed");
    }
    if (TransactionSynchronizationManager.isSynchronizationActive()
        || TransactionSynchronizationManager.hasResource(connections)) {
      return outsideCallerTransactions.execute(status -> evictingDeadConnection(work));
    }
    // Nothing of the caller's to set aside (the common case): bind one connection for the work's
    // statements directly. The transaction template's suspend, synchronisation and commit
    // bookkeeping cost 11 % of an H2 acquire+release.
    Connection c = DataSourceUtils.getConnection(connections);
    TransactionSynchronizationManager.bindResource(connections, new ConnectionHolder(c));
    try {
      return evictingDeadConnection(work);
    } finally {
      TransactionSynchronizationManager.unbindResource(connections);
      DataSourceUtils.releaseConnection(c, connections);
    }
  }

  /**
   * Runs {@code work} in a short transaction of its own and commits it; a deadlock or serialisation
   * failure runs it again, up to 16 times in all.
   */
  public <T> T transaction(Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return transactionOnce(work);
      } catch (RuntimeException e) {
        if (attempt >= TRANSACTION_ATTEMPTS || !isDeadlock(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Unlike {@link TransactionTemplate}, a rollback that fails too (the connection is gone) does not
   * replace the failure that caused it, which names the reason.
   */
  private <T> T transactionOnce(Supplier<T> work) {
    TransactionStatus status = transactions.getTransaction(NEW_TRANSACTION);
    T result;
    try {
      result = evictingDeadConnection(work);
    } catch (RuntimeException e) {
      try {
        transactions.rollback(status);
      } catch (RuntimeException rollbackFailed) {
        e.addSuppressed(rollbackFailed);
      }
      throw e;
    }
    transactions.commit(status);
    return result;
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

  /** Runs an INSERT, UPDATE or DELETE; the number of rows it changed. */
  public int update(String sql, Object... args) {
    return run(sql, args, PreparedStatement::executeUpdate);
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
   * Runs one statement on the operation's connection, with {@code args} bound by their types. This
   * is what {@link JdbcTemplate} does, less its per-statement generality (argument type inference,
   * parameter disposal, statement settings looked up through the transaction's resources), which
   * cost a tenth of an H2 acquire and release (the store's calls alone took 9.2 µs with it, 8.2 µs
   * without); the connection binding, the transactions and the exception translation stay Spring's.
   */
  private <T> T run(String sql, Object[] args, StatementWork<T> work) {
    Connection con = DataSourceUtils.getConnection(connections);
    try (PreparedStatement ps = con.prepareStatement(sql)) {
      if (statementTimeoutSeconds > 0) {
        ps.setQueryTimeout(statementTimeoutSeconds);
      }
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
      return work.apply(ps);
    } catch (SQLException e) {
      throw translate("jdbc lock store", sql, e);
    } finally {
      DataSourceUtils.releaseConnection(con, connections);
    }
  }

  /** What {@link #run} does with the prepared, bound statement. */
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
    return probe == null || operation(() -> queryFirst(probe, (rs, i) -> rs.getString(1))) != null;
  }

  /** Runs {@code script}, statements separated by {@code ;}, in auto-commit. */
  public void runScript(String script) {
    operation(
        () -> {
          for (String statement : script.split(";")) {
            if (!statement.isBlank()) {
              jdbc.execute(statement.strip());
            }
          }
          return null;
        });
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
  private static DataAccessException translate(String task, @Nullable String sql, SQLException e) {
    DataAccessException translated = SPRING.translate(task, null, e);
    if (translated == null) {
      return new UncategorizedSQLException(task, null, e);
    }
    if (translated instanceof BadSqlGrammarException) {
      return new InvalidDataAccessResourceUsageException(task + "; " + e.getMessage(), e);
    }
    return translated;
  }

  private <T> T evictingDeadConnection(Supplier<T> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      if (connectionLost(e)
          && TransactionSynchronizationManager.getResource(connections)
              instanceof ConnectionHolder holder) {
        connections.evict(holder);
      }
      throw e;
    }
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
   * the driver's statement timeout is a session setting, with it set once per connection. It counts
   * as the data source it wraps ({@link InfrastructureProxy}), so that a Spring transaction the
   * caller has open on that data source is found, and set aside.
   */
  private static final class StoreConnections extends DelegatingDataSource
      implements InfrastructureProxy {

    // The physical connections whose session-wide query timeout is set; weak, so that connections
    // the pool drops are forgotten.
    private final Set<Connection> sessionTimeoutSet =
        Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private volatile int sessionTimeoutSeconds;

    StoreConnections(DataSource target) {
      super(target);
    }

    @Override
    public Object getWrappedObject() {
      return obtainTargetDataSource();
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
    void evict(ConnectionHolder failed) {
      try {
        if (isWrapperFor(HikariDataSource.class)) {
          unwrap(HikariDataSource.class).evictConnection(failed.getConnection());
        }
      } catch (SQLException | RuntimeException ignored) {
        // The pool validates the connection before it lends it again after an idle spell.
      }
    }
  }
}
