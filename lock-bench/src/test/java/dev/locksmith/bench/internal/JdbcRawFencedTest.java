package dev.locksmith.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.bench.LockTarget.Held;
import dev.locksmith.bench.Servers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The JDBC {@code raw-fenced} bound does Locksmith's work, or its numbers bound nothing: it
 * excludes other owners, returns a new token per take-over, and counts re-entries. On the
 * benchmark's in-memory H2 database, two targets standing for two processes.
 */
class JdbcRawFencedTest {

  @Test
  @DisplayName(
      "h2/raw-fenced excludes another owner, re-enters, bumps the token per owner, and holds as an"
          + " owner per hold")
  void keepsLocksmithsPromises() throws Exception {
    try (JdbcTargets.RawFenced a = new JdbcTargets.RawFenced("h2");
        JdbcTargets.RawFenced b = new JdbcTargets.RawFenced("h2")) {
      String ownerA = a.ownerOfNextHold();
      String ownerB = b.ownerOfNextHold();
      Held first = a.tryOnce("raw-fenced-test", ownerA);
      assertThat(first).isNotNull();
      assertThat(row("raw-fenced-test")).containsExactly(1, 1);
      assertThat(b.tryOnce("raw-fenced-test", ownerB)).as("another owner while held").isNull();
      assertThat(a.tryOnce("raw-fenced-test", a.ownerOfNextHold()))
          .as("the same target's next hold, another owner, while held")
          .isNull();

      Held nested = a.tryOnce("raw-fenced-test", ownerA);
      assertThat(nested).isNotNull();
      assertThat(row("raw-fenced-test")).as("re-entry keeps the token").containsExactly(1, 2);
      nested.release();
      assertThat(b.tryOnce("raw-fenced-test", ownerB)).as("one hold is left").isNull();
      first.release();
      assertThatThrownBy(first::release).hasMessageContaining("was not held");

      Held other = b.tryOnce("raw-fenced-test", ownerB);
      assertThat(other).isNotNull();
      assertThat(row("raw-fenced-test")).as("a new owner, a new token").containsExactly(2, 1);
      other.release();
    }
  }

  /** The row's version (the fencing token) and hold count. */
  private static long[] row(String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(Servers.jdbcUrl("h2"));
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT version, holds FROM bench_fenced_lock WHERE name = ? AND kind = 'X'")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("row of " + name).isTrue();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }
}
