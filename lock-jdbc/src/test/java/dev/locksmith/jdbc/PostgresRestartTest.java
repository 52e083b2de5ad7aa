package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;

/** The JDBC store when its PostgreSQL server goes away and comes back (a server of its own). */
class PostgresRestartTest {

  private static PostgresServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  @DisplayName(
      "Database stopped: renewal fails and onLost fires, acquire throws; back: it recovers")
  void survivesARestart() throws Exception {
    try (LockClient client = LockClient.open(server.lockUri(""), LockOptions.defaults())) {
      Lease held = client.lock("restart").withLeaseTime(Duration.ofSeconds(3)).acquire();
      CompletableFuture<Lease> lost = new CompletableFuture<>();
      held.onLost((lease, reason) -> lost.complete(lease));
      long tokenBefore = held.fencingToken();

      server.stop();
      assertThat(lost.get(15, TimeUnit.SECONDS)).isSameAs(held);
      assertThat(held.isValid()).isFalse();
      long started = System.nanoTime();
      assertThatThrownBy(() -> client.lock("other").tryAcquire())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("the store is unavailable")
          // Spring's translation, with the driver's (here the pool's) exception beneath it.
          .cause()
          .isInstanceOf(DataAccessException.class)
          .hasCauseInstanceOf(java.sql.SQLException.class);
      // The pool gives up after its connection timeout rather than hanging.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));

      server.restart();
      Lease after =
          await()
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptionsInstanceOf(LockStoreException.class)
              .until(() -> client.lock("restart").tryAcquire().orElse(null), l -> l != null);
      // The version survived the restart: the fencing token keeps rising.
      assertThat(after.fencingToken()).isGreaterThan(tokenBefore);
      after.release();
    }
  }

  @Test
  @DisplayName("Database paused (SIGSTOP): statements time out with LockStoreException, not hang")
  void pausedDatabaseTimesOut() throws Exception {
    try (LockClient client = LockClient.open(server.lockUri(""), LockOptions.defaults())) {
      client.lock("warm-up").tryAcquire().orElseThrow().release();
      server.pause();
      try {
        long started = System.nanoTime();
        assertThatThrownBy(() -> client.lock("paused").tryAcquire())
            .isInstanceOf(LockStoreException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .isLessThan(Duration.ofSeconds(20));
      } finally {
        server.resume();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptionsInstanceOf(LockStoreException.class)
          .until(() -> client.lock("paused").tryAcquire().isPresent());
    }
  }
}
