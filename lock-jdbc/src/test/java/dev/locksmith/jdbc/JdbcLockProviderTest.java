package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.tck.fixture.ServerProcess;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Opening the JDBC store from a URI and configuring it, on H2. */
class JdbcLockProviderTest {

  @Test
  @DisplayName(
      "locksmith.* options set the table; keyPrefix prefixes the row name; driver options pass")
  void optionsReachTheStore() throws Exception {
    String url = TestDatabases.newH2Url();
    try (LockClient client =
            LockClient.open(
                url + "?locksmith.table=custom_locks&locksmith.queryTimeout=3s&user=sa",
                LockOptions.builder().keyPrefix("app:").build());
        Lease lease = client.lock("job").tryAcquire().orElseThrow()) {
      assertThat(client.capabilities())
          .as("an in-memory database forgets its rows, so its tokens are not durable")
          .containsExactlyInAnyOrder(
              Capability.FENCING, Capability.REENTRANCY, Capability.READ_WRITE);
      try (Connection c = DriverManager.getConnection(url, "sa", "");
          PreparedStatement ps =
              c.prepareStatement("SELECT name, owner, holds, version FROM custom_locks");
          ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        // A non-empty prefix is joined with U+001F, so ("app:", "job") is not ("app", ":job").
        assertThat(rs.getString("name")).isEqualTo("app:\u001Fjob");
        assertThat(rs.getString("owner")).isNotBlank();
        assertThat(rs.getInt("holds")).isEqualTo(1);
        assertThat(rs.getLong("version")).isEqualTo(lease.fencingToken());
      }
    }
  }

  @Test
  @DisplayName(
      "a file database declares DURABLE_FENCING and keeps its tokens rising across a reopen;"
          + " an in-memory one does not declare it")
  void durableFencingOnlyWhereRowsSurvive() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("locksmith-h2-durable");
    String fileUrl = "jdbc:h2:file:" + dir.resolve("locks");
    long first;
    try (LockClient client = LockClient.open(fileUrl)) {
      assertThat(client.capabilities()).contains(Capability.DURABLE_FENCING);
      try (Lease lease = client.lock("durable").tryAcquire().orElseThrow()) {
        first = lease.fencingToken();
      }
    }
    // Closing the last client closes the embedded database: what survives is on disk.
    try (LockClient client = LockClient.open(fileUrl);
        Lease lease = client.lock("durable").tryAcquire().orElseThrow()) {
      assertThat(lease.fencingToken()).isGreaterThan(first);
    }
    try (LockClient client = LockClient.open(TestDatabases.newH2Url())) {
      assertThat(client.capabilities())
          .contains(Capability.FENCING)
          .doesNotContain(Capability.DURABLE_FENCING);
    }
  }

  @Test
  @DisplayName("An unknown locksmith.* option is rejected with its name")
  void unknownLocksmithOption() {
    assertThatThrownBy(() -> LockClient.open(TestDatabases.newH2Url() + "?locksmith.tabel=x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("locksmith.tabel");
  }

  @Test
  @DisplayName("A table name that is not a plain identifier is rejected before any SQL runs")
  void tableNameMustBeAnIdentifier() {
    assertThatThrownBy(
            () ->
                LockClient.open(
                    TestDatabases.newH2Url() + "?locksmith.table=locks%3B%20DROP%20TABLE%20x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a plain SQL identifier");
    assertThatThrownBy(() -> JdbcLockStoreOptions.builder().schema("a.b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JdbcLockStoreOptions.builder().table("x".repeat(56)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatNullPointerException().isThrownBy(() -> JdbcLockStoreOptions.builder().table(null));
    assertThatThrownBy(() -> JdbcLockStoreOptions.builder().queryTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @DisplayName("Bad values of locksmith.* options are rejected with the option's name")
  void badOptionValues() {
    String url = TestDatabases.newH2Url();
    assertThatThrownBy(() -> LockClient.open(url + "?locksmith.createTable=maybe"))
        .hasMessageContaining("locksmith.createTable");
    assertThatThrownBy(() -> LockClient.open(url + "?locksmith.poolSize=0"))
        .hasMessageContaining("locksmith.poolSize");
    assertThatThrownBy(() -> LockClient.open(url + "?locksmith.queryTimeout=soon"))
        .hasMessageContaining("locksmith.queryTimeout");
    assertThatThrownBy(() -> LockClient.open(url + "?locksmith.sweepInterval=10ms"))
        .hasMessageContaining("locksmith.sweepInterval");
    assertThatThrownBy(() -> LockClient.open(url + "?locksmith.sweepInterval=2h"))
        .hasMessageContaining("locksmith.sweepInterval");
    assertThatThrownBy(() -> JdbcLockStoreOptions.builder().sweepInterval(Duration.ofMillis(99)))
        .isInstanceOf(IllegalArgumentException.class);
    // The prefix, U+001F and a 256-byte name must fit the 320 characters of the name column.
    assertThatThrownBy(
            () -> LockClient.open(url, LockOptions.builder().keyPrefix("k".repeat(64)).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix")
        .hasMessageContaining("k".repeat(64));
  }

  @Test
  @DisplayName(
      "With createTable=false and no table, operations fail with LockStoreException that says so")
  void createTableCanBeSwitchedOff() {
    try (LockClient client =
        LockClient.open(TestDatabases.newH2Url() + "?locksmith.createTable=false")) {
      assertThatThrownBy(() -> client.lock("x").tryAcquire())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("jdbc/h2")
          // What the database said, which Spring's own message for bad grammar leaves out.
          .hasMessageContaining("Table \"LOCKSMITH_LOCKS\" not found");
    }
  }

  @Test
  @DisplayName("The tables can live in a named schema")
  void schema() throws Exception {
    String url = TestDatabases.newH2Url();
    try (Connection c = DriverManager.getConnection(url)) {
      c.createStatement().execute("CREATE SCHEMA locking");
    }
    try (LockClient client = LockClient.open(url + "?locksmith.schema=locking");
        Lease held = client.lock("x").tryAcquire().orElseThrow();
        Connection c = DriverManager.getConnection(url);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT COUNT(*), MAX(version), NEXT VALUE FOR locking.locksmith_locks_seq"
                        + " FROM locking.locksmith_locks")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
      assertThat(rs.getLong(3)).as("the schema's token sequence").isGreaterThan(rs.getLong(2));
      assertThat(held.fencingToken()).isEqualTo(rs.getLong(2));
    }
  }

  @Test
  @DisplayName("An unreachable database fails open quickly with LockStoreException")
  void unreachableDatabase() throws Exception {
    int closedPort = ServerProcess.freePort();
    long started = System.nanoTime();
    assertThatThrownBy(
            () ->
                LockClient.open(
                    "jdbc:postgresql://127.0.0.1:"
                        + closedPort
                        + "/db?user=u&password=secret&locksmith.connectionTimeout=1s"))
        .isInstanceOf(LockStoreException.class)
        .hasMessageNotContaining("secret");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
  }

  @Test
  @DisplayName("A jdbc: URI without a subprotocol is rejected")
  void noSubprotocol() {
    assertThatThrownBy(() -> LockClient.open("jdbc:")).isInstanceOf(IllegalArgumentException.class);
  }
}
