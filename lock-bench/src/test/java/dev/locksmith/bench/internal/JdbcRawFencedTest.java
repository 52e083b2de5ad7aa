package dev.locksmith.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.bench.LockTarget.Held;
import dev.locksmith.bench.Servers;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JDBC {@code raw-fenced} bound does the work of Locksmith's store, or its numbers bound
 * nothing: it excludes other owners, counts re-entries, draws a greater token from the sequence for
 * every new holder although rows come and go, and keeps no row once a lock is released. On the
 * benchmark's in-memory H2 database and on an embedded PostgreSQL, two targets standing for two
 * processes.
 */
class JdbcRawFencedTest {

  private static @Nullable EmbeddedPostgres postgres;
  private static @Nullable String postgresProperty;

  @BeforeAll
  static void startPostgres() throws Exception {
    postgresProperty = System.getProperty("bench.postgres");
    postgres = EmbeddedPostgres.builder().start();
    System.setProperty("bench.postgres", Integer.toString(postgres.getPort()));
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    if (postgresProperty == null) {
      System.clearProperty("bench.postgres");
    } else {
      System.setProperty("bench.postgres", postgresProperty);
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgres"})
  @DisplayName(
      "raw-fenced excludes another owner, re-enters with the same token, gives a new owner a"
          + " greater one, and holds as an owner per hold")
  void keepsLocksmithsPromises(String store) throws Exception {
    try (JdbcTargets.RawFenced a = new JdbcTargets.RawFenced(store);
        JdbcTargets.RawFenced b = new JdbcTargets.RawFenced(store)) {
      String ownerA = a.ownerOfNextHold();
      String ownerB = b.ownerOfNextHold();
      Held first = a.tryOnce("raw-fenced-test", ownerA);
      assertThat(first).isNotNull();
      long[] held = row(store, "raw-fenced-test");
      assertThat(held[1]).as("holds").isEqualTo(1);
      assertThat(b.tryOnce("raw-fenced-test", ownerB)).as("another owner while held").isNull();
      assertThat(a.tryOnce("raw-fenced-test", a.ownerOfNextHold()))
          .as("the same target's next hold, another owner, while held")
          .isNull();

      Held nested = a.tryOnce("raw-fenced-test", ownerA);
      assertThat(nested).isNotNull();
      assertThat(row(store, "raw-fenced-test"))
          .as("re-entry keeps the token")
          .containsExactly(held[0], 2);
      nested.release();
      assertThat(b.tryOnce("raw-fenced-test", ownerB)).as("one hold is left").isNull();
      first.release();
      assertThat(rows(store, "raw-fenced-test")).as("rows once released").isZero();
      assertThatThrownBy(first::release).hasMessageContaining("was not held");

      Held other = b.tryOnce("raw-fenced-test", ownerB);
      assertThat(other).isNotNull();
      assertThat(row(store, "raw-fenced-test")[0])
          .as("a new owner, a greater token")
          .isGreaterThan(held[0]);
      other.release();
      assertThat(rows(store, "raw-fenced-test")).isZero();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgres"})
  @DisplayName(
      "raw-fenced tokens rise across holders although each release deletes the row, and after a"
          + " row is deleted under its holder; no row stays per name")
  void tokensRiseAndNothingStays(String store) throws Exception {
    try (JdbcTargets.RawFenced a = new JdbcTargets.RawFenced(store);
        JdbcTargets.RawFenced b = new JdbcTargets.RawFenced(store)) {
      long last = 0;
      for (int i = 0; i < 20; i++) {
        Held held = (i % 2 == 0 ? a : b).acquire("rising");
        long token = row(store, "rising")[0];
        assertThat(token).as("hold " + i).isGreaterThan(last);
        last = token;
        held.release();
        assertThat(rows(store, "rising")).as("rows after release " + i).isZero();
      }

      // The row goes under its holder, as the store's sweep deletes an expired hold's row.
      Held swept = a.acquire("rising");
      last = row(store, "rising")[0];
      execute(store, "DELETE FROM " + JdbcTargets.RawFenced.TABLE + " WHERE name = 'rising'");
      Held next = b.acquire("rising");
      assertThat(row(store, "rising")[0]).isGreaterThan(last);
      assertThatThrownBy(swept::release).hasMessageContaining("was not held");
      next.release();

      for (int i = 0; i < 200; i++) {
        (i % 2 == 0 ? a : b).acquire("names-" + i).release();
      }
      assertThat(rows(store, "names-%"))
          .as("rows after 200 names were acquired and released")
          .isZero();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgres"})
  @DisplayName(
      "raw-fenced starts a new sequence above the tokens of rows an earlier layout kept, as the"
          + " store does")
  void startsAboveKeptRows(String store) throws Exception {
    new JdbcTargets.RawFenced(store).close(); // The table exists.
    execute(store, "DROP SEQUENCE IF EXISTS " + JdbcTargets.RawFenced.SEQUENCE);
    execute(
        store,
        "INSERT INTO "
            + JdbcTargets.RawFenced.TABLE
            + " (name, kind, owner, holds, version, expires_at, waiting_owner, waiting_until)"
            + " VALUES ('kept', 'X', NULL, 0, 5000000, 0, NULL, 0)");
    try (JdbcTargets.RawFenced a = new JdbcTargets.RawFenced(store)) {
      Held kept = a.acquire("kept");
      assertThat(row(store, "kept")[0]).as("the kept row taken over").isGreaterThan(5_000_000);
      kept.release();
      Held fresh = a.acquire("fresh");
      assertThat(row(store, "fresh")[0]).as("a new name").isGreaterThan(5_000_000);
      fresh.release();
      assertThat(rows(store, "kept")).isZero();
    }
  }

  /** The row's version (the fencing token) and hold count. */
  private static long[] row(String store, String name) throws SQLException {
    try (Connection c = connect(store);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT version, holds FROM "
                    + JdbcTargets.RawFenced.TABLE
                    + " WHERE name = ? AND kind = 'X'")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("row of " + name).isTrue();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  /** How many rows have a name {@code LIKE pattern}. */
  private static long rows(String store, String pattern) throws SQLException {
    try (Connection c = connect(store);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM " + JdbcTargets.RawFenced.TABLE + " WHERE name LIKE ?")) {
      ps.setString(1, pattern);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void execute(String store, String sql) throws SQLException {
    try (Connection c = connect(store);
        var s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Connection connect(String store) throws SQLException {
    return store.equals("postgres")
        ? DriverManager.getConnection(Servers.jdbcUrl(store), "postgres", "")
        : DriverManager.getConnection(Servers.jdbcUrl(store));
  }
}
