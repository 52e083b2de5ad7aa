package dev.locksmith.jdbc;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The database servers shared by the test classes of one JVM: started on first use, stopped when
 * the JVM exits. Tests that break a server start their own.
 */
final class TestDatabases {

  private static @Nullable PostgresServer postgres;
  private static @Nullable MariaDbServer mariaDb;

  private TestDatabases() {}

  static synchronized PostgresServer postgres() {
    if (postgres == null) {
      postgres = PostgresServer.start(); // stopped at JVM exit by its own shutdown hook
    }
    return postgres;
  }

  static synchronized MariaDbServer mariaDb() {
    if (mariaDb == null) {
      mariaDb = MariaDbServer.start(); // stopped at JVM exit by its own shutdown hook
    }
    return mariaDb;
  }

  /** A fresh in-memory H2 database that lives until the JVM exits. */
  static String newH2Url() {
    return "jdbc:h2:mem:locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  }
}
