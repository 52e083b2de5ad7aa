package dev.locksmith.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.bench.LockTarget.Held;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@code zookeeper/raw} bound is a lock, or its hand-off floor bounds nothing: waiters hold one
 * at a time, in queue order, and the one right behind the holder holds on the deletion it watched
 * without another request. On a real ZooKeeper server (curator-test), three targets standing for
 * three processes.
 */
class ZooKeeperRawTest {

  private static final String LOCK = "raw-hand-off";

  @Test
  @DisplayName(
      "zookeeper/raw hands the lock to one waiter at a time, in queue order, the first without"
          + " listing the queue again")
  void handsOffInQueueOrder() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<String> secondsRequests = new CopyOnWriteArrayList<>();
    List<String> thirdsRequests = new CopyOnWriteArrayList<>();
    try (TestingServer server = new TestingServer()) {
      try (ZooKeeperTargets.Raw holder = raw(server, new CopyOnWriteArrayList<>());
          ZooKeeperTargets.Raw second = raw(server, secondsRequests);
          ZooKeeperTargets.Raw third = raw(server, thirdsRequests)) {
        AtomicInteger holding = new AtomicInteger();
        Held first = holder.acquire(LOCK);
        holding.incrementAndGet();

        CompletableFuture<Held> secondHold = waiting(pool, second, holding, secondsRequests);
        CompletableFuture<Held> thirdHold = waiting(pool, third, holding, thirdsRequests);
        secondsRequests.clear();

        holding.decrementAndGet();
        first.release();
        Held secondHeld = secondHold.get(10, TimeUnit.SECONDS);
        assertThat(secondsRequests)
            .as("the second's requests from the release to its hold")
            .doesNotContain("GetChildrenBuilderImpl-Foreground");
        assertThat(thirdHold).as("the third, while the second holds").isNotDone();

        holding.decrementAndGet();
        secondHeld.release();
        Held thirdHeld = thirdHold.get(10, TimeUnit.SECONDS);
        holding.decrementAndGet();
        thirdHeld.release();
        holder.acquire(LOCK).release(); // Free again: the queue is empty.
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * {@code target}'s acquire, once it watches the node before its own; it counts itself into {@code
   * holding} and fails if anyone else holds then.
   */
  private static CompletableFuture<Held> waiting(
      ExecutorService pool,
      ZooKeeperTargets.Raw target,
      AtomicInteger holding,
      List<String> requests) {
    CompletableFuture<Held> hold =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                Held held = target.acquire(LOCK);
                assertThat(holding.incrementAndGet()).as("holders, counting this one").isEqualTo(1);
                return held;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            pool);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> requests.contains("ExistsBuilderImpl-Foreground"));
    return hold;
  }

  /** A raw target whose client's finished requests are added to {@code requests} by name. */
  private static ZooKeeperTargets.Raw raw(TestingServer server, List<String> requests)
      throws InterruptedException {
    CuratorFramework curator = ZooKeeperTargets.curator(server.getConnectString());
    curator
        .getZookeeperClient()
        .setTracerDriver(
            new TracerDriver() {
              @Override
              public void addTrace(String name, long time, TimeUnit unit) {
                requests.add(name);
              }

              @Override
              public void addCount(String name, int increment) {}
            });
    return new ZooKeeperTargets.Raw(curator);
  }
}
