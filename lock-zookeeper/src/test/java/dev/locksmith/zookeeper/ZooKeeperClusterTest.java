package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LeaseLostListener;
import dev.locksmith.LockClient;
import dev.locksmith.LockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Faults of a three-server ZooKeeper ensemble: leader loss, quorum loss, recovery. */
class ZooKeeperClusterTest {

  private TestingCluster cluster;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeEach
  void startCluster() throws Exception {
    cluster = ZooKeeperServers.cluster(3);
    await().atMost(Duration.ofSeconds(30)).until(() -> leader() != null);
  }

  @AfterEach
  void stopCluster() throws Exception {
    pool.shutdownNow();
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      try {
        c.close();
      } catch (Exception e) {
        // Best effort: the ensemble may be down on purpose.
      }
    }
    cluster.close();
  }

  private InstanceSpec leader() {
    for (InstanceSpec spec : cluster.getInstances()) {
      if ("leader".equals(ZooKeeperServers.mode(spec))) {
        return spec;
      }
    }
    return null;
  }

  private LockClient client(String sessionTimeout) {
    LockClient c =
        LockClient.open(
            "zookeeper://"
                + cluster.getConnectString()
                + "/cluster?sessionTimeout="
                + sessionTimeout
                + "&connectionTimeout=1s");
    toClose.add(c);
    return c;
  }

  /** Records what a lease is told. */
  private static final class Events implements LeaseLostListener {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void leaseLost(Lease lease, LeaseLostException reason) {
      seen.add("lost");
    }

    @Override
    public void leaseSuspended(Lease lease) {
      seen.add("suspended");
    }

    @Override
    public void leaseResumed(Lease lease) {
      seen.add("resumed");
    }
  }

  @Test
  @DisplayName("killing the leader keeps the lock held and the waiters in their order")
  void leaderLoss() throws Exception {
    LockClient holder = client("8s");
    CuratorFramework admin =
        ZooKeeperServers.curator(cluster.getConnectString(), Duration.ofSeconds(8));
    toClose.add(admin);
    Lease lease = holder.lock("l").acquire(Duration.ofSeconds(5));
    Events events = new Events();
    lease.onLost(events);

    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int id = i;
      LockClient c = client("8s");
      waiters.add(
          pool.submit(
              () -> {
                try (Lease l = c.lock("l").acquire(Duration.ofSeconds(60))) {
                  order.add(id);
                }
                return null;
              }));
      int expected = i + 2;
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> admin.getChildren().forPath("/cluster/l").size() == expected);
    }

    InstanceSpec leader = leader();
    assertThat(leader).isNotNull();
    cluster.killServer(leader);
    await().atMost(Duration.ofSeconds(30)).until(() -> leader() != null);
    // The holder may have been connected to the old leader: then it is suspended for a moment.
    await().atMost(Duration.ofSeconds(15)).until(lease::isValid);
    assertThat(events.seen).doesNotContain("lost");
    assertThat(order).isEmpty();

    lease.release();
    for (Future<?> f : waiters) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2);
  }

  @Test
  @DisplayName(
      "losing the quorum fails acquires within their wait and tells holders, then recovers")
  void quorumLoss() throws Exception {
    LockClient holder = client("3s");
    LockClient other = client("3s");
    Lease lease = holder.lock("q").acquire(Duration.ofSeconds(5));
    Events events = new Events();
    lease.onLost(events);

    List<InstanceSpec> killed = new ArrayList<>();
    for (InstanceSpec spec : cluster.getInstances()) {
      if (killed.size() < 2) {
        cluster.killServer(spec);
        killed.add(spec);
      }
    }

    await().atMost(Duration.ofSeconds(10)).until(() -> events.seen.contains("suspended"));
    assertThat(lease.isValid()).isFalse();

    long start = System.nanoTime();
    assertThatThrownBy(() -> other.lock("q").acquire(Duration.ofSeconds(2)))
        .isInstanceOf(LockException.class);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    // Within the wait plus one connection timeout (1 s) and slack.
    assertThat(took).isLessThan(Duration.ofSeconds(5));
    assertThatThrownBy(() -> other.lock("q").tryAcquire()).isInstanceOf(LockException.class);

    // Past the session timeout the holder is told the lease is gone.
    await().atMost(Duration.ofSeconds(15)).until(() -> events.seen.contains("lost"));
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);

    for (InstanceSpec spec : killed) {
      cluster.restartServer(spec);
    }
    // Both clients recover by themselves once the quorum is back.
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              try (Lease l = other.lock("q").acquire(Duration.ofSeconds(5))) {
                return l.isValid();
              }
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              try (Lease l = holder.lock("q").acquire(Duration.ofSeconds(5))) {
                return l.isValid();
              }
            });
  }
}
