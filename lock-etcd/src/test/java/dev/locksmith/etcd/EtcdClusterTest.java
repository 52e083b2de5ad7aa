package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockException;
import dev.locksmith.LockOptions;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.spi.LockUri;
import dev.locksmith.tck.HistoryChecker;
import dev.locksmith.tck.LockHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Three etcd members on loopback and clients that know all three ({@code etcd://a,b,c}): killing
 * the member the clients talk to costs a few failed calls, not the lock.
 */
class EtcdClusterTest {

  private static final int CLIENTS = 3;
  private static final int ROUNDS_AFTER_KILL = 5;

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        // Best effort.
      }
    }
  }

  @Test
  @DisplayName(
      "killing the member the clients talk to: they move to another member and keep locking,"
          + " and no two holds ever overlap")
  void killTheCurrentMember() throws Exception {
    List<EtcdServer> members = new ArrayList<>(EtcdServer.cluster(3));
    toClose.addAll(members);
    // The leader first in the URI: the clients talk to it, and killing it also costs an election.
    EtcdServer leader = members.stream().filter(EtcdServer::isLeader).findFirst().orElseThrow();
    members.remove(leader);
    members.add(0, leader);
    String uri = EtcdServer.uri(members);
    List<EtcdLockStore> stores = new ArrayList<>();
    List<LockClient> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      EtcdLockStore store =
          (EtcdLockStore) new EtcdLockProvider().open(LockUri.parse(uri), LockOptions.defaults());
      LockClient client = LockClient.of(store, LockOptions.defaults());
      toClose.add(client);
      stores.add(store);
      clients.add(client);
    }
    EtcdServer current = members.get(0);
    for (EtcdLockStore s : stores) {
      assertThat(s.currentMember())
          .as("the member a new client talks to")
          .isEqualTo(current.address());
    }

    LockHistory history = new LockHistory();
    AtomicLong counter = new AtomicLong();
    AtomicInteger increments = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    AtomicBoolean killed = new AtomicBoolean();
    AtomicInteger[] afterKill = new AtomicInteger[CLIENTS];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<CompletableFuture<Void>> workers = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        LockClient client = clients.get(i);
        AtomicInteger mine = afterKill[i] = new AtomicInteger();
        workers.add(
            CompletableFuture.runAsync(
                () -> {
                  while (mine.get() < ROUNDS_AFTER_KILL && System.nanoTime() < deadline) {
                    boolean wasKilled = killed.get();
                    Optional<Lease> lease;
                    try {
                      lease =
                          client
                              .lock("cluster")
                              .withLeaseTime(Duration.ofSeconds(3))
                              .tryAcquire(Duration.ofSeconds(5));
                    } catch (LockException e) {
                      failures.incrementAndGet(); // a call cut off by the kill or the election
                      continue;
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      return;
                    }
                    if (lease.isEmpty()) {
                      continue;
                    }
                    LockHistory.Hold hold = history.acquired("cluster", lease.get().fencingToken());
                    long seen = counter.get(); // unguarded read-modify-write: the lock guards it
                    Thread.yield();
                    counter.set(seen + 1);
                    increments.incrementAndGet();
                    hold.released();
                    try {
                      lease.get().release();
                    } catch (LockException e) {
                      failures.incrementAndGet();
                    }
                    if (wasKilled) {
                      mine.incrementAndGet();
                    }
                  }
                },
                pool));
      }
      // Let them lock a while on the first member, then kill it.
      while (increments.get() < 3 * CLIENTS && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      current.kill();
      killed.set(true);
      CompletableFuture.allOf(workers.toArray(new CompletableFuture<?>[0]))
          .get(120, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    System.out.printf(
        "cluster: %d holds, %d failed calls around the kill of the leader %s%n",
        increments.get(), failures.get(), current.address());
    for (int i = 0; i < CLIENTS; i++) {
      assertThat(afterKill[i].get())
          .as("locks taken by client %d after the kill (%d calls failed)", i, failures.get())
          .isGreaterThanOrEqualTo(ROUNDS_AFTER_KILL);
      assertThat(stores.get(i).currentMember()).isNotEqualTo(current.address());
    }
    assertThat(counter.get()).as("no update lost").isEqualTo(increments.get());
    HistoryChecker.assertConsistent(history);
  }
}
