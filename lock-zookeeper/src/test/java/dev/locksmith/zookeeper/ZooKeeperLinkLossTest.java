package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.tck.fixture.TcpProxy;
import dev.locksmith.zookeeper.fixture.LossyLink;
import dev.locksmith.zookeeper.fixture.ZooKeeperServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A client whose own link to the server breaks while the server stays up. */
class ZooKeeperLinkLossTest {

  /** The session of the waiter whose link is cut: it must be lost for the waiter to be told. */
  private static final Duration SESSION = Duration.ofSeconds(3);

  /** The longest session the test server grants (20 ticks): it outlives a short outage. */
  private static final Duration LONGEST_SESSION = Duration.ofMillis(20L * ZooKeeperServers.TICK_MS);

  /** How long one store operation waits for a connection. */
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

  /** What a loaded 2-core machine may add to any timing here. */
  private static final Duration SLACK = Duration.ofSeconds(5);

  private static TestingServer server;

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperServers.server();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @AfterEach
  void closeAll() {
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      try {
        c.close();
      } catch (Exception e) {
        // Best effort: some links are broken on purpose.
      }
    }
    toClose.clear();
  }

  private LockClient client(int port, String base) {
    LockClient c =
        LockClient.open(
            "zookeeper://127.0.0.1:"
                + port
                + base
                + "?sessionTimeout="
                + SESSION.toMillis()
                + "ms&connectionTimeout="
                + CONNECTION_TIMEOUT.toMillis()
                + "ms");
    toClose.add(c);
    return c;
  }

  @Test
  @DisplayName(
      "a waiter in the queue whose link is cut keeps waiting while merely suspended, and its"
          + " acquire fails once its session is lost: within the session and slack, not at the end"
          + " of its wait")
  void waiterToldWhenItsSessionDies() throws Exception {
    LockClient holder = client(server.getPort(), "/t/cut-waiter");
    CuratorFramework admin = curator(server.getPort(), SESSION);
    TcpProxy proxy = TcpProxy.start("127.0.0.1", server.getPort());
    toClose.add(proxy);
    LockClient waiter = client(proxy.port(), "/t/cut-waiter");
    Lease held = holder.lock("w").acquire(Duration.ofSeconds(5));

    Duration wait = Duration.ofSeconds(60);
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread waiting =
        new Thread(
            () -> {
              try {
                outcome.complete(waiter.lock("w").acquire(wait));
              } catch (Throwable t) {
                outcome.complete(t);
              }
            });
    waiting.start();
    await("the waiter's node in the queue")
        .atMost(SLACK)
        .until(() -> admin.getChildren().forPath("/t/cut-waiter/w").size() == 2);

    proxy.cut();
    long cut = System.nanoTime();
    Object result = outcome.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    Duration took = Duration.ofNanos(System.nanoTime() - cut);

    assertThat(result).isInstanceOf(LockStoreException.class);
    // Curator declares the session lost once the connection has been down for the session
    // timeout; the waiter must hear of it then.
    assertThat(took).isLessThan(CONNECTION_TIMEOUT.plus(SESSION).plus(SLACK));
    assertThat(held.isValid()).isTrue();
    held.release();
    waiting.join(TimeUnit.SECONDS.toMillis(10));
  }

  @Test
  @DisplayName(
      "a release whose delete is lost with the link fails, and keeps the hold: asked again once"
          + " the link is back (in the same session), it deletes the node and answers RELEASED")
  void failedReleaseCanBeAskedAgain() throws Exception {
    CuratorFramework admin = curator(server.getPort(), SESSION);
    LossyLink link = LossyLink.start("127.0.0.1", server.getPort());
    toClose.add(link);
    CuratorFramework mine = storeCurator(link.port());
    ZooKeeperLockStore store = new ZooKeeperLockStore(mine, "/t/failed-release");
    toClose.add(store);
    LockClient other = client(server.getPort(), "/t/failed-release");
    LockKey key = LockKey.exclusive("r");
    Duration lease = Duration.ofSeconds(30);
    assertThat(store.tryAcquire(key, "o", lease).isAcquired()).isTrue();
    List<String> nodes = admin.getChildren().forPath(store.lockPath(key));
    assertThat(nodes).hasSize(1);
    String node = store.lockPath(key) + "/" + nodes.get(0);
    long session = mine.getZookeeperClient().getZooKeeper().getSessionId();

    link.loseNext(ZooDefs.OpCode.delete);
    Exception failure = null;
    try {
      store.release(key, "o");
    } catch (Exception e) {
      failure = e;
    }
    assertThat(link.awaitLost(SLACK)).as("the delete was lost on the way").isTrue();
    assertThat(failure).as("the release whose delete was lost").isNotNull();
    assertThat(store.classify(failure)).isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(admin.checkExists().forPath(node)).as("the node, never deleted").isNotNull();
    assertThat(other.lock("r").tryAcquire()).as("the lock meanwhile").isEmpty();

    link.restore();
    await("the store's client back in its session")
        .atMost(LONGEST_SESSION)
        .until(() -> mine.getZookeeperClient().isConnected());
    assertThat(mine.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);

    assertThat(store.release(key, "o")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(admin.checkExists().forPath(node)).as("the node after the second release").isNull();
    assertThat(other.lock("r").tryAcquire()).as("the lock after it").isPresent();
    assertThat(store.release(key, "o")).as("a third release").isEqualTo(ReleaseOutcome.NOT_HELD);
  }

  /**
   * A Curator client on {@code port} as the provider makes them (one quick retry), with the longest
   * session, which outlives the outage: a connection timeout for the lost request, one for
   * Curator's retry and one for the store's look after it.
   */
  private CuratorFramework storeCurator(int port) throws Exception {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString("127.0.0.1:" + port)
            .sessionTimeoutMs((int) LONGEST_SESSION.toMillis())
            .connectionTimeoutMs((int) CONNECTION_TIMEOUT.toMillis())
            .retryPolicy(new RetryNTimes(1, 50))
            .build();
    toClose.add(c);
    c.start();
    assertThat(c.blockUntilConnected((int) SLACK.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    return c;
  }

  private CuratorFramework curator(int port, Duration session) throws Exception {
    CuratorFramework c = ZooKeeperServers.curator("127.0.0.1:" + port, session);
    toClose.add(c);
    return c;
  }
}
