package dev.locksmith.jdbc;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Prints how many rows the lock tables keep after 10,000 distinct names were acquired and released
 * once each, on H2 in memory, PostgreSQL and MariaDB: the store's footprint for a service that
 * locks one order, account or request at a time. A measurement, not a check (the checks are in
 * {@link JdbcStoreBehaviour}); it runs only when asked, and compiles against earlier versions of
 * the store so that they can be measured the same way:
 *
 * <pre>
 * ./mvnw -o -pl lock-jdbc verify -Dtest=FootprintMeasurement -Dlocksmith.footprint=true \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@EnabledIfSystemProperty(named = "locksmith.footprint", matches = "true")
class FootprintMeasurement {

  private static final int NAMES = 10_000;

  @Test
  void h2() throws Exception {
    String url = TestDatabases.newH2Url();
    measure("h2 (jdbc:h2:mem:)", url, () -> DriverManager.getConnection(url));
  }

  @Test
  void postgres() throws Exception {
    PostgresServer server = TestDatabases.postgres();
    measure("postgresql", server.lockUri(""), () -> connect(server.dataSource()));
  }

  @Test
  void mariaDb() throws Exception {
    MariaDbServer server = TestDatabases.mariaDb();
    measure("mariadb", server.lockUri(""), () -> connect(server.dataSource()));
  }

  private static Connection connect(DataSource ds) throws Exception {
    return ds.getConnection();
  }

  private interface Connector {
    Connection open() throws Exception;
  }

  private static void measure(String store, String uri, Connector db) throws Exception {
    long started = System.nanoTime();
    try (LockClient client = LockClient.open(uri, LockOptions.defaults())) {
      for (int i = 0; i < NAMES; i++) {
        client.lock("order:" + i).tryAcquire().orElseThrow().release();
      }
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT (SELECT COUNT(*) FROM locksmith_locks WHERE name LIKE 'order:%')"
                    + " + (SELECT COUNT(*) FROM locksmith_locks_readers"
                    + " WHERE name LIKE 'order:%')")) {
      rs.next();
      System.out.printf(
          "footprint %s: %d rows left after %,d distinct names acquired and released (%d ms)%n",
          store, rs.getLong(1), NAMES, millis);
    }
  }
}
