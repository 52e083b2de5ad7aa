package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.tck.internal.HolderProcess;
import dev.locksmith.zookeeper.fixture.ZooKeeperServers;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A holder process frozen (SIGSTOP) for longer than its ZooKeeper session while a rival takes the
 * lock, then continued: it must be told, not left believing it holds.
 */
class ZooKeeperPausedHolderTest {

  /** The holder's session: the shortest the test server grants comfortably (4 ticks). */
  private static final Duration SESSION = Duration.ofSeconds(2);

  /** How long one store operation waits for a connection. */
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  /**
   * What a loaded 2-core machine may add: the server expires sessions in tick-sized buckets, and a
   * continued JVM reconnects after a random pause of up to a second before it hears of the expiry.
   */
  private static final Duration SLACK = Duration.ofSeconds(5);

  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperServers.server();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static String uri() {
    return "zookeeper://127.0.0.1:"
        + server.getPort()
        + "/t/paused?sessionTimeout="
        + SESSION.toMillis()
        + "ms&connectionTimeout="
        + CONNECTION_TIMEOUT.toMillis()
        + "ms";
  }

  @RepeatedTest(2)
  @DisplayName(
      "a holder process stopped past its session while a rival takes the lock, continued and"
          + " releasing at once: the release throws LeaseLostException, onLost fires, isValid()"
          + " is false, and the rival keeps the lock")
  void pausedHolderIsTold() throws Exception {
    String name = "paused-" + System.nanoTime();
    try (LockClient rivals = LockClient.open(uri());
        HolderProcess.Started holder = HolderProcess.start(uri(), name, SESSION)) {
      holder.signal("STOP");
      Lease rival;
      try {
        // The rival gets the lock only once the server has expired the frozen holder's session.
        rival = rivals.lock(name).acquire(SESSION.plus(SLACK).multipliedBy(2));
        assertThat(rival.fencingToken()).isGreaterThan(holder.token());
      } finally {
        holder.signal("CONT");
      }
      holder.send("RELEASE"); // At once: the holder's client has not heard of the expiry yet.
      String released = holder.await("LOST-AT-RELEASE", CONNECTION_TIMEOUT.plus(SLACK));
      assertThat(released)
          .as(
              () ->
                  "the continued holder's release (LeaseLostException, not LockStoreException);"
                      + " the holder "
                      + state(holder))
          .isNotNull();
      assertThat(holder.await("LOST ", SLACK)).as("the holder's onLost").isNotNull();
      holder.send("CHECK");
      assertThat(holder.await("VALID", SLACK)).isEqualTo("VALID false");
      assertThat(rival.isValid()).as("the rival's lease").isTrue();
      assertThat(rivals.lock(name).withOwner("third").tryAcquire()).isEmpty();
      rival.release();
    }
  }

  /** Whether the holder process still runs: a release that threw anything else ended it. */
  private static String state(HolderProcess.Started holder) {
    Process p = holder.process();
    return p.isAlive()
        ? "still runs"
        : "ended with exit code " + p.exitValue() + " (its release threw)";
  }
}
