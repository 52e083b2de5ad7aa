package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LeaseLostListener;
import dev.locksmith.LockClient;
import dev.locksmith.LockException;
import dev.locksmith.zookeeper.fixture.ZooKeeperServers;
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

  /** How long one store operation waits for a connection: generous, for a loaded CI machine. */
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  /** A session that outlives a leader election, so that killing the leader loses no hold. */
  private static final Duration LONG_SESSION = Duration.ofSeconds(8);

  /** A session short enough for the quorum-loss test to see it expire quickly. */
  private static final Duration SHORT_SESSION = Duration.ofSeconds(3);

  /** What a loaded 2-core machine may add to any timing the store declares. */
  private static final Duration SLACK = Duration.ofSeconds(5);

  private TestingCluster cluster;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeEach
  void startCluster() throws Exception {
    cluster = ZooKeeperServers.cluster(3); // Returns once a leader is elected and all serve.
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

  private LockClient client(Duration sessionTimeout) {
    LockClient c =
        LockClient.open(
            "zookeeper://"
                + cluster.getConnectString()
                + "/cluster?sessionTimeout="
                + sessionTimeout.toMillis()
                + "ms&connectionTimeout="
                + CONNECTION_TIMEOUT.toMillis()
                + "ms");
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
    LockClient holder = client(LONG_SESSION);
    CuratorFramework admin = ZooKeeperServers.curator(cluster.getConnectString(), LONG_SESSION);
    toClose.add(admin);
    Lease lease = holder.lock("l").acquire(Duration.ofSeconds(5));
    Events events = new Events();
    lease.onLost(events);

    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int id = i;
      LockClient c = client(LONG_SESSION);
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
          .atMost(CONNECTION_TIMEOUT.plus(SLACK))
          .until(() -> admin.getChildren().forPath("/cluster/l").size() == expected);
    }

    InstanceSpec leader = leader();
    assertThat(leader).isNotNull();
    cluster.killServer(leader);
    ZooKeeperServers.awaitLeader(cluster);
    // The holder may have been connected to the old leader: then it is suspended until it
    // reconnects to another member, which it must do within its session.
    await().atMost(LONG_SESSION.plus(SLACK)).until(lease::isValid);
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
    LockClient holder = client(SHORT_SESSION);
    LockClient other = client(SHORT_SESSION);
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

    // The surviving member stops serving without a quorum and drops its clients; a client of a
    // killed member notices within its read timeout (two thirds of the session).
    await().atMost(SHORT_SESSION.plus(SLACK)).until(() -> events.seen.contains("suspended"));
    assertThat(lease.isValid()).isFalse();

    Duration wait = Duration.ofSeconds(2);
    long start = System.nanoTime();
    assertThatThrownBy(() -> other.lock("q").acquire(wait)).isInstanceOf(LockException.class);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    // A failed acquire is two store calls (the engine's clean-up release follows it), each
    // waiting at most one connection timeout for a connection; the wait itself may come first.
    assertThat(took).isLessThan(wait.plus(CONNECTION_TIMEOUT.multipliedBy(2)).plus(SLACK));
    assertThatThrownBy(() -> other.lock("q").tryAcquire()).isInstanceOf(LockException.class);

    // Past the session timeout the holder is told the lease is gone.
    await().atMost(SHORT_SESSION.plus(SLACK)).until(() -> events.seen.contains("lost"));
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);

    for (InstanceSpec spec : killed) {
      cluster.restartServer(spec);
    }
    ZooKeeperServers.awaitLeader(cluster);
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
