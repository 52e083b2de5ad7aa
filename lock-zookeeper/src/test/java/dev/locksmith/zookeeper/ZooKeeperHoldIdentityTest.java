package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreListener;
import dev.locksmith.zookeeper.fixture.ZooKeeperServers;
import dev.locksmith.zookeeper.internal.LockNodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A loss report names the hold it is about and never reaches a later hold: the engine ends the
 * leases whose key, owner and token a report names, so a report of an older hold that arrived after
 * a newer hold of the same owner with the same token (readers share one), or a report of an old
 * session's loss that arrived after a hold of the new session, would end a hold that lives.
 *
 * <p>Reports arrive late when the store's event thread is held up: here by a listener (a lease's
 * {@code onLost}) that takes its time over an earlier report.
 */
class ZooKeeperHoldIdentityTest {

  /** How long anything here may take on a loaded 2-core machine: a bound, not a pause. */
  private static final Duration BOUND = Duration.ofSeconds(15);

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
        // Best effort.
      }
    }
    toClose.clear();
  }

  private CuratorFramework curator() throws Exception {
    CuratorFramework c = ZooKeeperServers.curator(server.getConnectString(), Duration.ofSeconds(5));
    toClose.add(c);
    return c;
  }

  private ZooKeeperLockStore store(String base) throws Exception {
    ZooKeeperLockStore s = new ZooKeeperLockStore(curator(), base);
    toClose.add(s);
    return s;
  }

  /** Waits until the node at {@code path} has a watch set on the server (a held node's watch). */
  private static void awaitWatched(String path) {
    await("a watch on " + path)
        .atMost(BOUND)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> ZooKeeperServers.watchedPaths(server.getPort()).contains(path));
  }

  /** The path of the only node under the lock at {@code lockPath} whose name starts with kind. */
  private static String onlyNode(CuratorFramework admin, String lockPath, String kind)
      throws Exception {
    List<String> nodes =
        admin.getChildren().forPath(lockPath).stream().filter(n -> n.contains(kind)).toList();
    assertThat(nodes).as("%s nodes under %s", kind, lockPath).hasSize(1);
    return lockPath + "/" + nodes.get(0);
  }

  /**
   * Waits until {@code curator}'s event thread has handled everything the server sent it so far
   * (watch events included): ZooKeeper answers a session's requests in order, after the events it
   * sent before, and its client hands both to one thread in that order.
   */
  private static void awaitEventsHandled(CuratorFramework curator) throws Exception {
    CountDownLatch answered = new CountDownLatch(1);
    curator.getData().inBackground((c, e) -> answered.countDown()).forPath("/");
    assertThat(answered.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
  }

  @Test
  @DisplayName(
      "a deletion report of an owner's older read hold, delivered late, never reaches the owner's"
          + " newer read hold with the same token")
  void lateReportOfAnOlderHold() throws Exception {
    CuratorFramework admin = curator();
    CuratorFramework mine = curator();
    ZooKeeperLockStore store = new ZooKeeperLockStore(mine, "/t/late-hold");
    toClose.add(store);
    ZooKeeperLockStore otherReader = store("/t/late-hold");
    Duration lease = Duration.ofSeconds(30);
    LockKey doc = new LockKey("doc", LockMode.READ);
    LockKey slow = LockKey.exclusive("slow");
    LockKey marker = LockKey.exclusive("marker");

    // Events as the engine sees them, in order; a report about "slow" holds the event thread up.
    List<String> events = new CopyOnWriteArrayList<>();
    CountDownLatch heldUp = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    store
        .sessionEvents()
        .orElseThrow()
        .listen(
            new StoreListener() {
              @Override
              public void holdLost(LockKey key, String owner, long token, String reason) {
                events.add("lost " + key.name() + " " + owner + " " + token);
                if (key.equals(slow)) {
                  heldUp.countDown();
                  try {
                    letGo.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              }

              @Override
              public void suspended() {}

              @Override
              public void resumed() {}

              @Override
              public void sessionLost(String reason) {
                events.add("session lost");
              }
            });

    // Another reader keeps the lock's parent, and with it the token readers share.
    assertThat(otherReader.tryAcquire(doc, "reader-2", lease).isAcquired()).isTrue();
    Acquisition first = store.tryAcquire(doc, "o", lease);
    assertThat(store.tryAcquire(slow, "s", lease).isAcquired()).isTrue();
    String docNode = onlyNode(admin, store.lockPath(doc), "read-" + LockNodes.ownerTag("o"));
    String slowNode = onlyNode(admin, store.lockPath(slow), "lock-");
    awaitWatched(docNode);
    awaitWatched(slowNode);

    // The report about "slow" holds the event thread up; the report about doc queues behind it.
    admin.delete().forPath(slowNode);
    assertThat(heldUp.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    admin.delete().forPath(docNode);
    awaitEventsHandled(mine); // The watch on doc's node has fired: its report waits.

    assertThat(store.release(doc, "o")).isEqualTo(ReleaseOutcome.NOT_HELD);
    events.add("released");
    Acquisition second = store.tryAcquire(doc, "o", lease);
    assertThat(second.isAcquired()).isTrue();
    assertThat(second.token()).as("the newer hold's token").isEqualTo(first.token());
    events.add("acquired again");

    letGo.countDown();
    // Everything queued before is handled once a report queued after it arrives.
    assertThat(store.tryAcquire(marker, "m", lease).isAcquired()).isTrue();
    String markerNode = onlyNode(admin, store.lockPath(marker), "lock-");
    awaitWatched(markerNode);
    admin.delete().forPath(markerNode);
    await().atMost(BOUND).until(() -> events.stream().anyMatch(e -> e.startsWith("lost marker")));

    String newerHold = "lost doc o " + second.token();
    assertThat(events.subList(events.indexOf("acquired again"), events.size()))
        .as("reports after the newer hold was handed out (all: %s)", events)
        .doesNotContain(newerHold);
    assertThat(events.subList(0, events.indexOf("released")))
        .as("the older hold's loss, reported before its release answered")
        .contains(newerHold);
    assertThat(store.release(doc, "o")).isEqualTo(ReleaseOutcome.RELEASED);
  }

  @Test
  @DisplayName(
      "the loss of an expired session, reported late, never ends a hold the client took in its"
          + " new session")
  void lateReportOfAnOldSession() throws Exception {
    CuratorFramework admin = curator();
    CuratorFramework mine = curator();
    LockClient a =
        LockClient.of(new ZooKeeperLockStore(mine, "/t/late-session"), LockOptions.defaults());
    toClose.add(a);
    LockClient b = LockClient.open(uri("/t/late-session"));
    toClose.add(b);

    // A lease whose onLost takes its time holds the store's event thread up.
    Lease slow = a.lock("slow").acquire(Duration.ofSeconds(5));
    CountDownLatch heldUp = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    slow.onLost(
        (l, why) -> {
          heldUp.countDown();
          try {
            letGo.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    String slowNode = onlyNode(admin, "/t/late-session/slow", "lock-");
    awaitWatched(slowNode);
    admin.delete().forPath(slowNode);
    assertThat(heldUp.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    // The session expires; Curator reconnects with a new one. Its events wait behind the listener.
    long expired = mine.getZookeeperClient().getZooKeeper().getSessionId();
    ZooKeeperServers.expireSession(mine, server.getConnectString());
    await("a new session")
        .atMost(BOUND)
        .until(
            () ->
                mine.getZookeeperClient().isConnected()
                    && mine.getZookeeperClient().getZooKeeper().getSessionId() != expired);
    Lease fresh = a.lock("x").acquire(Duration.ofSeconds(5));

    letGo.countDown();
    // Everything queued before is handled once a report queued after it arrives.
    Lease marker = a.lock("marker").acquire(Duration.ofSeconds(5));
    CountDownLatch markerLost = new CountDownLatch(1);
    marker.onLost((l, why) -> markerLost.countDown());
    String markerNode = onlyNode(admin, "/t/late-session/marker", "lock-");
    awaitWatched(markerNode);
    admin.delete().forPath(markerNode);
    assertThat(markerLost.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    assertThat(fresh.isValid()).as("the hold of the new session").isTrue();
    assertThat(b.lock("x").tryAcquire()).as("another client while it holds").isEmpty();
    fresh.release();
    assertThat(b.lock("x").tryAcquire()).as("another client after its release").isPresent();
  }

  private static String uri(String base) {
    return "zookeeper://127.0.0.1:"
        + server.getPort()
        + base
        + "?sessionTimeout=5s&connectionTimeout=5s";
  }
}
