package dev.locksmith.zookeeper;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.StoreFaults;
import java.time.Duration;
import java.util.Optional;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole test kit against a real ZooKeeper server ({@code curator-test}'s in-process server).
 *
 * <p>Faults stop the server and start it again on the same port with the same data: a pause is a
 * stop (nothing answers, state is kept on disk), a kill is a stop too (ZooKeeper persists every
 * write before answering, so nothing acknowledged is lost). The kit's default {@code crash} closes
 * the store, which closes its Curator client and so ends the session: ZooKeeper deletes the crashed
 * client's nodes at once, as it would for a process whose connection dropped, after the session
 * timeout.
 */
class ZooKeeperLockContractTest extends LockStoreContract {

  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperServers.server();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(
        "zookeeper://127.0.0.1:"
            + server.getPort()
            + "/locksmith-tck?sessionTimeout=3s&connectionTimeout=1s",
        options);
  }

  /** Session bound: the "lease" after which a dead holder's lock frees is the session timeout. */
  @Override
  protected Duration shortLease() {
    return Duration.ofSeconds(3);
  }

  /**
   * A crashed process does not close its session: drop the connection without ending it (the server
   * frees the locks when the session times out), then stop the client.
   */
  @Override
  protected void crash(LockClient client) {
    ((ZooKeeperLockStore) EngineStores.store(client)).abandonSession();
    super.crash(client);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(
        new StoreFaults() {
          @Override
          public void pause() {
            stop();
          }

          @Override
          public void resume() {
            start();
          }

          @Override
          public void kill() {
            stop();
          }

          @Override
          public void restart() {
            start();
          }
        });
  }

  private static void stop() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("could not stop the ZooKeeper test server", e);
    }
  }

  private static void start() {
    try {
      server.restart();
    } catch (Exception e) {
      throw new IllegalStateException("could not restart the ZooKeeper test server", e);
    }
  }
}
