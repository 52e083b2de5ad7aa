package dev.locksmith.zookeeper;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.fixture.TcpProxy;
import dev.locksmith.zookeeper.internal.LockNodes;
import dev.locksmith.zookeeper.internal.LockNodes.QueueNode;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole test kit against a real ZooKeeper server ({@code curator-test}'s in-process server).
 *
 * <p>Faults stop the server and start it again on the same port with the same data: a pause is a
 * stop (nothing answers, state is kept on disk), a kill is a stop too (ZooKeeper persists every
 * write before answering, so nothing acknowledged is lost).
 *
 * <p>Each client talks to the server through its own {@link TcpProxy}, so that a crash can be real:
 * the proxy cuts the client off without it ending its session (no goodbye, as from a dead process),
 * and the server frees the crashed client's locks when its session times out.
 */
class ZooKeeperLockContractTest extends LockStoreContract {

  private static final String BASE_PATH = "/locksmith-tck";

  private static TestingServer server;
  private static CuratorFramework operator;
  private static final Map<LockClient, TcpProxy> proxies = new ConcurrentHashMap<>();

  /**
   * The session: the "lease" of a crashed holder, kept short because the crash and expiry rules
   * wait for it.
   */
  private static final Duration SESSION = Duration.ofSeconds(3);

  /** How long one store operation waits for a connection: generous, for a loaded CI machine. */
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperServers.server();
  }

  @AfterAll
  static void stopServer() throws Exception {
    proxies.values().forEach(TcpProxy::close);
    if (operator != null) {
      operator.close();
    }
    server.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    TcpProxy proxy = TcpProxy.start("127.0.0.1", server.getPort());
    LockClient client = LockClient.open(uri(proxy.port()), options);
    proxies.put(client, proxy);
    return client;
  }

  /**
   * Child JVMs reach the server itself: a killed process cannot close its session, so the server
   * frees its locks at the session timeout, as it would for a real crash.
   */
  @Override
  protected Optional<String> storeUri() {
    return Optional.of(uri(server.getPort()));
  }

  private static String uri(int port) {
    return "zookeeper://127.0.0.1:"
        + port
        + BASE_PATH
        + "?sessionTimeout="
        + SESSION.toMillis()
        + "ms&connectionTimeout="
        + CONNECTION_TIMEOUT.toMillis()
        + "ms";
  }

  /** Session bound: the "lease" after which a dead holder's lock frees is the session timeout. */
  @Override
  protected Duration shortLease() {
    return SESSION;
  }

  /**
   * A failed acquire on a stopped server is two store calls (the engine's clean-up release follows
   * it), each waiting up to the connection timeout for a connection, and each may first meet the
   * dead connection once and be retried by Curator (up to a second each on a loaded machine).
   */
  @Override
  protected Duration storeTimeout() {
    return CONNECTION_TIMEOUT.plusSeconds(1).multipliedBy(2);
  }

  /**
   * A crashed process does not close its session: cut the client off the network first, so that
   * stopping it cannot end the session either; the server frees its locks at the session timeout.
   */
  @Override
  protected void crash(LockClient client) {
    TcpProxy proxy = proxies.remove(client);
    if (proxy != null) {
      proxy.cut();
    }
    super.crash(client);
  }

  /**
   * An operator with its own ZooKeeper client (its own session, straight to the server, open ACL):
   * deletes the nodes of one kind of hold under the lock's parent, as the store lays them out.
   */
  @Override
  protected Optional<OutsideActor> outsideActor() {
    return Optional.of(
        (name, mode) -> {
          try {
            CuratorFramework zk = operator();
            String lockPath = BASE_PATH + "/" + LockNodes.encode(name);
            for (QueueNode node : LockNodes.queue(zk.getChildren().forPath(lockPath), mode)) {
              if (node.kind().equals(LockNodes.kindOf(mode))) {
                zk.delete().forPath(lockPath + "/" + node.name());
              }
            }
          } catch (Exception e) {
            throw new IllegalStateException("could not delete the holds of lock " + name, e);
          }
        });
  }

  private static synchronized CuratorFramework operator() throws Exception {
    if (operator == null) {
      operator = ZooKeeperServers.curator(server.getConnectString(), Duration.ofSeconds(10));
    }
    return operator;
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
      ZooKeeperServers.awaitServing(server);
    } catch (Exception e) {
      throw new IllegalStateException("could not restart the ZooKeeper test server", e);
    }
  }
}
