package dev.locksmith.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tck.fixture.MemcachedServer;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs every example against a real store, so that none of them can rot: each must show a lost
 * lease reported to its holder, a higher token for the next holder, and the stale write refused.
 */
class ExamplesTest {

  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

  @Test
  @DisplayName("mem: the in-process store fences the holder that stalled past its lease")
  void mem() throws Exception {
    assertFenced(MemExample.run("mem:examples-test", out));
  }

  @Test
  @DisplayName("mem: main runs with its default URI and prints the story")
  void memMain() throws Exception {
    PrintStream systemOut = System.out;
    System.setOut(out);
    try {
      MemExample.main(new String[0]);
    } finally {
      System.setOut(systemOut);
    }
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("holder: lease lost")
        .contains("storage: refused the holder's late write");
  }

  @Test
  @DisplayName("Redis: a real redis-server fences the holder that stalled past its lease")
  void redis() throws Exception {
    try (ServerProcess server = RedisServer.startVolatile()) {
      assertFenced(RedisExample.run(RedisServer.uri(server), out));
    }
  }

  @Test
  @DisplayName("memcached: a real memcached fences the holder that stalled past its lease")
  void memcached() throws Exception {
    try (ServerProcess server = MemcachedServer.start(16)) {
      assertFenced(MemcachedExample.run(MemcachedServer.uri(server), out));
    }
  }

  @Test
  @DisplayName("ZooKeeper: the holder whose session ended is told, and fenced off")
  void zooKeeper() throws Exception {
    try (TestingServer server = new TestingServer(true)) {
      assertFenced(ZooKeeperExample.run(server.getConnectString(), out));
    }
  }

  @Test
  @DisplayName("H2: an embedded database fences the holder that stalled past its lease")
  void h2() throws Exception {
    assertFenced(H2Example.run("jdbc:h2:mem:examples-test;DB_CLOSE_DELAY=-1", out));
  }

  @Test
  @DisplayName("PostgreSQL: a real server fences the holder that stalled past its lease")
  void postgres() throws Exception {
    try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
      String uri = "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres?user=postgres";
      assertFenced(PostgresExample.run(uri, out));
    }
  }

  private void assertFenced(FencingDemo.Report report) {
    assertThat(report.lostReason()).as("reason told to onLost").isNotBlank();
    assertThat(report.rivalToken()).isGreaterThan(report.holderToken());
    assertThat(report.staleWriteRefused()).as("stale write refused").isTrue();
    assertThat(report.releaseAfterLossThrew()).as("release of the lost lease threw").isTrue();
    assertThat(report.storedValue()).isEqualTo("final version written by the rival");
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("holder: lease lost")
        .contains(
            "rival: acquired " + FencingDemo.LOCK_NAME + " with token " + report.rivalToken());
  }
}
