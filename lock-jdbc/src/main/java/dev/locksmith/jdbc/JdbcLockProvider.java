package dev.locksmith.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens {@link JdbcLockStore}s for {@code jdbc:} URIs, such as {@code jdbc:h2:mem:locks}, {@code
 * jdbc:postgresql://db/app?user=app&password=secret} or {@code jdbc:mariadb://db/app}.
 *
 * <p>The URI minus its query is the JDBC URL. Query options named {@code locksmith.*} configure the
 * store ({@code locksmith.table}, {@code locksmith.schema}, {@code locksmith.createTable}, {@code
 * locksmith.queryTimeout}, {@code locksmith.poolSize}, {@code locksmith.connectionTimeout}, {@code
 * locksmith.sweepInterval}); the common options ({@code leaseTime}, …) configure the client; every
 * other option is a driver property ({@code user}, {@code password}, {@code sslmode}, …) and goes
 * to the driver as is. An unknown {@code locksmith.*} option is an error. Connections are pooled
 * with HikariCP, with a bounded connection timeout so that an unreachable database fails fast with
 * {@link LockStoreException} instead of hanging.
 */
public final class JdbcLockProvider implements LockProvider {

  /** The lock table's name. */
  public static final String TABLE = "locksmith.table";

  /** The lock table's schema. */
  public static final String SCHEMA = "locksmith.schema";

  /** Whether to create the tables if missing ({@code true}/{@code false}). */
  public static final String CREATE_TABLE = "locksmith.createTable";

  /** The statement timeout, such as {@code 5s}. */
  public static final String QUERY_TIMEOUT = "locksmith.queryTimeout";

  /** The most pooled connections (default 10). */
  public static final String POOL_SIZE = "locksmith.poolSize";

  /** How long to wait for a pooled connection, such as {@code 3s} (default 3 s). */
  public static final String CONNECTION_TIMEOUT = "locksmith.connectionTimeout";

  /**
   * How often to sweep the rows of holds that ended without a release, such as {@code 30s} (default
   * 30 s, from 100 ms to 1 h).
   */
  public static final String SWEEP_INTERVAL = "locksmith.sweepInterval";

  private static final Set<String> OPTIONS =
      Set.of(
          TABLE,
          SCHEMA,
          CREATE_TABLE,
          QUERY_TIMEOUT,
          POOL_SIZE,
          CONNECTION_TIMEOUT,
          SWEEP_INTERVAL);
  private static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(3);
  private static final AtomicInteger POOLS = new AtomicInteger();

  @Override
  public Set<String> schemes() {
    return Set.of("jdbc");
  }

  @Override
  public Set<String> options() {
    return OPTIONS;
  }

  @Override
  public boolean passesUnknownOptions() {
    return true;
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    if (uri.body().isBlank() || uri.body().startsWith(":")) {
      throw new IllegalArgumentException(
          "lock URI '" + uri + "' has no JDBC subprotocol; write jdbc:h2:…, jdbc:postgresql://…");
    }
    String jdbcUrl = "jdbc:" + uri.body();
    requireDriver(jdbcUrl);
    JdbcLockStoreOptions.Builder store = JdbcLockStoreOptions.builder();
    options.keyPrefix().ifPresent(store::keyPrefix);
    Properties driver = new Properties();
    int poolSize = 10;
    Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    Duration queryTimeout = JdbcLockStoreOptions.DEFAULT_QUERY_TIMEOUT;
    for (Map.Entry<String, String> e : uri.options().entrySet()) {
      String value = e.getValue();
      switch (e.getKey()) {
        case TABLE:
          store.table(value);
          break;
        case SCHEMA:
          store.schema(value);
          break;
        case CREATE_TABLE:
          store.createTable(parseBoolean(CREATE_TABLE, value));
          break;
        case QUERY_TIMEOUT:
          queryTimeout = parseDuration(QUERY_TIMEOUT, value);
          store.queryTimeout(queryTimeout);
          break;
        case POOL_SIZE:
          poolSize = parsePoolSize(value);
          break;
        case SWEEP_INTERVAL:
          Duration sweep = parseDuration(SWEEP_INTERVAL, value);
          if (sweep.compareTo(JdbcLockStoreOptions.MIN_SWEEP_INTERVAL) < 0) {
            throw new IllegalArgumentException(
                SWEEP_INTERVAL + " must be at least 100ms, was '" + value + "'");
          }
          store.sweepInterval(sweep);
          break;
        case CONNECTION_TIMEOUT:
          connectionTimeout = parseDuration(CONNECTION_TIMEOUT, value);
          if (connectionTimeout.toMillis() < 250) {
            throw new IllegalArgumentException(
                CONNECTION_TIMEOUT + " must be at least 250ms, was " + value);
          }
          break;
        default:
          if (e.getKey().startsWith("locksmith.")) {
            throw new IllegalArgumentException(
                "unknown option '"
                    + e.getKey()
                    + "' in lock URI '"
                    + uri
                    + "'; the JDBC store knows "
                    + String.join(", ", new java.util.TreeSet<>(OPTIONS)));
          }
          driver.setProperty(e.getKey(), value);
      }
    }
    addNetworkTimeouts(jdbcUrl, driver, queryTimeout);

    HikariConfig config = new HikariConfig();
    config.setPoolName("locksmith-jdbc-" + POOLS.incrementAndGet());
    config.setJdbcUrl(jdbcUrl);
    config.setDataSourceProperties(driver);
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    config.setConnectionTimeout(connectionTimeout.toMillis());
    config.setValidationTimeout(Math.min(1000, connectionTimeout.toMillis()));
    config.setInitializationFailTimeout(connectionTimeout.toMillis());
    JdbcLockStoreOptions storeOptions = store.build();
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new LockStoreException(
          "jdbc: cannot connect to '"
              + LockUri.redact(jdbcUrl)
              + "' (is the database up and reachable?): "
              + e.getMessage(),
          e);
    }
    try {
      return new JdbcLockStore(pool, storeOptions, pool);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /**
   * Fails with {@link IllegalArgumentException} naming the missing driver when no JDBC driver on
   * the class path accepts {@code jdbcUrl}. Without this check the pool reports a missing driver as
   * a failure to connect, indistinguishable from a database that is down; a missing driver is a
   * build or packaging mistake that no retry will fix.
   */
  private static void requireDriver(String jdbcUrl) {
    try {
      java.sql.DriverManager.getDriver(jdbcUrl);
    } catch (java.sql.SQLException noDriver) {
      String subprotocol = jdbcUrl.split(":", 3).length > 1 ? jdbcUrl.split(":", 3)[1] : "";
      String artifact =
          switch (subprotocol) {
            case "postgresql" -> "org.postgresql:postgresql";
            case "mariadb" -> "org.mariadb.jdbc:mariadb-java-client";
            case "mysql" -> "com.mysql:mysql-connector-j (or use jdbc:mariadb:)";
            case "h2" -> "com.h2database:h2";
            default -> "the database's JDBC driver";
          };
      throw new IllegalArgumentException(
          "no JDBC driver for 'jdbc:"
              + subprotocol
              + ":' on the class path: add "
              + artifact
              + " to use "
              + LockUri.redact(jdbcUrl),
          noDriver);
    }
  }

  /**
   * Socket-level timeouts for drivers whose default is to wait forever, so that a database that
   * stops answering (paused, partitioned) fails a statement instead of hanging it.
   */
  private static void addNetworkTimeouts(String jdbcUrl, Properties driver, Duration query) {
    long socketSeconds = query.toSeconds() + 5;
    if (jdbcUrl.startsWith("jdbc:postgresql:")) {
      driver.putIfAbsent("socketTimeout", Long.toString(socketSeconds));
      driver.putIfAbsent("connectTimeout", "5");
      // A query timeout sends a cancel request; bound the wait for a server that does not answer.
      driver.putIfAbsent("cancelSignalTimeout", "2");
    } else if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
      driver.putIfAbsent("socketTimeout", Long.toString(socketSeconds * 1000));
      driver.putIfAbsent("connectTimeout", "5000");
    }
  }

  private static boolean parseBoolean(String name, String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException(name + " must be true or false, was '" + value + "'");
    }
  }

  private static int parsePoolSize(String value) {
    try {
      int size = Integer.parseInt(value);
      if (size >= 1 && size <= 1000) {
        return size;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        POOL_SIZE + " must be a whole number from 1 to 1000, was '" + value + "'");
  }

  private static Duration parseDuration(String name, String value) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    try {
      Duration d;
      if (v.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).strip()));
      } else if (v.endsWith("s")) {
        d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1).strip()));
      } else if (v.endsWith("m")) {
        d = Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1).strip()));
      } else {
        d = Duration.parse(value.strip());
      }
      if (!d.isNegative() && !d.isZero() && d.compareTo(Duration.ofHours(1)) <= 0) {
        return d;
      }
    } catch (NumberFormatException | DateTimeParseException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        name + " must be a duration from 1ms to 1h such as 500ms, 5s or PT5S, was '" + value + "'");
  }
}
