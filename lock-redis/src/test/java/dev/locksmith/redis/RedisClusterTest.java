package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Redis store on a real cluster: slots, locks across masters, read-write and wake-ups. */
class RedisClusterTest {

  static RedisCluster cluster;
  static LockClient a;
  static LockClient b;

  @BeforeAll
  static void start() {
    cluster = RedisCluster.start();
    a = LockClient.open(cluster.uri());
    b = LockClient.open(cluster.uri());
  }

  @AfterAll
  static void stop() {
    a.close();
    b.close();
    cluster.close();
  }

  @Test
  @DisplayName("a cluster declares fencing but not durable fencing (failover may lose counters)")
  void capabilities() {
    assertThat(a.capabilities())
        .contains(Capability.FENCING, Capability.REENTRANCY, Capability.READ_WRITE)
        .doesNotContain(Capability.DURABLE_FENCING);
  }

  @Test
  @DisplayName("locks spread over every master, each lock with its slot's token counter")
  void locksSpreadAndExclude() throws Exception {
    List<Lease> held = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String name = "spread-" + i + (i % 3 == 0 ? "{tag}" : "");
      Lease l = a.lock(name).acquire(Duration.ZERO);
      held.add(l);
      assertThat(b.lock(name).tryAcquire()).isEmpty();
    }
    for (RedisServer m : cluster.masters()) {
      assertThat(m.cli("DBSIZE")).as("keys on " + m.address()).isNotEqualTo("0");
    }
    held.forEach(Lease::release);
    assertThat(b.lock("spread-1").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("read-write locks and release wake-ups work across the cluster")
  void readWriteAndWakeUp() throws Exception {
    Lease r = a.readWriteLock("c-rw").readLock().acquire(Duration.ZERO);
    assertThat(b.readWriteLock("c-rw").readLock().tryAcquire()).isPresent();
    assertThat(b.readWriteLock("c-rw").writeLock().tryAcquire()).isEmpty();
    r.release();
    Lease x = a.lock("c-wake").acquire(Duration.ZERO);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    LockClient slow =
        LockClient.open(
            cluster.uri(),
            dev.locksmith.LockOptions.builder()
                .backoff(Duration.ofSeconds(20), Duration.ofSeconds(20))
                .build());
    try {
      Future<Lease> waiter = pool.submit(() -> slow.lock("c-wake").acquire(Duration.ofSeconds(30)));
      Thread.sleep(300); // let the waiter subscribe and start its 20 s pause
      x.release();
      waiter.get(5, TimeUnit.SECONDS).release();
    } finally {
      pool.shutdown();
      slow.close();
    }
  }
}
