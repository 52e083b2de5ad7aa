package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.tck.fixture.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A waiter that sleeps on the watch-based release push is woken when its own link to etcd dies,
 * against a real etcd reached through a proxy that the test cuts.
 */
class EtcdWaiterLinkTest {

  /** The waiter's back-off: far longer than the test may take, so only the push can wake it. */
  private static final Duration BACKOFF = Duration.ofSeconds(30);

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        // A client whose link was cut may fail to release; its keys expire with their leases.
      }
    }
  }

  @Test
  @DisplayName(
      "a waiter with a 30 s back-off whose link is cut fails with LockStoreException within the"
          + " request timeout and slack, not at the end of its wait")
  void waiterToldWhenItsLinkDies() throws Exception {
    EtcdServer server = EtcdServer.start();
    toClose.add(server);
    LockClient holder = LockClient.open(server.uri());
    toClose.add(holder);
    TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port());
    toClose.add(proxy);
    LockClient waiter =
        LockClient.open(
            "etcd://127.0.0.1:" + proxy.port(),
            LockOptions.builder().backoff(BACKOFF, BACKOFF).build());
    toClose.add(waiter);

    Lease held = holder.lock("linked").withLeaseTime(Duration.ofSeconds(60)).acquire();
    toClose.add(held::release);
    long watchersBefore = watchers(server);
    CompletableFuture<Lease> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return waiter.lock("linked").acquire(Duration.ofSeconds(60));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    // The waiter is asleep once its watch is confirmed (it asks once more right after).
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> watchers(server) > watchersBefore);

    long cut = System.nanoTime();
    proxy.cut();
    Throwable failure;
    try {
      waiting.get(20, TimeUnit.SECONDS);
      throw new AssertionError("the waiter acquired through a cut link");
    } catch (ExecutionException e) {
      failure = e.getCause();
    }
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
    assertThat(failure).isInstanceOf(LockStoreException.class);
    // The request timeout (1 s) and slack for a loaded machine; never the 30 s back-off.
    assertThat(tookMillis).isLessThan(5_000);
  }

  @Test
  @DisplayName(
      "a waiter with a 30 s back-off whose watch stream dropped (a link blip) is still woken by the"
          + " release: the watch opens a new stream")
  void waiterStillWokenAfterItsStreamDropped() throws Exception {
    EtcdServer server = EtcdServer.start();
    toClose.add(server);
    LockClient holder = LockClient.open(server.uri());
    toClose.add(holder);
    TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port());
    toClose.add(proxy);
    LockClient waiter =
        LockClient.open(
            "etcd://127.0.0.1:" + proxy.port(),
            LockOptions.builder().backoff(BACKOFF, BACKOFF).build());
    toClose.add(waiter);

    Lease held = holder.lock("blip").withLeaseTime(Duration.ofSeconds(60)).acquire();
    long watchersBefore = watchers(server);
    CompletableFuture<Lease> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return waiter.lock("blip").acquire(Duration.ofSeconds(60));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> watchers(server) == watchersBefore + 1);

    // The blip: every connection through the proxy drops; new ones are accepted. The waiter wakes,
    // finds the lock still held, and sleeps again.
    proxy.dropConnections();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> watchers(server) == watchersBefore);
    // Time for a new stream to be confirmed; without one the waiter sleeps out its back-off.
    long settle = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    while (watchers(server) == watchersBefore && System.nanoTime() - settle < 0) {
      Thread.sleep(20);
    }

    long released = System.nanoTime();
    held.release();
    Lease got = waiting.get(20, TimeUnit.SECONDS);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
    got.release();
    // A pushed wake-up and one attempt, with slack for a loaded machine; never the back-off.
    assertThat(tookMillis).isLessThan(5_000);
  }

  /** How many watchers etcd has now ({@code etcd_debugging_mvcc_watcher_total}). */
  static long watchers(EtcdServer server) {
    return server.inspector().metric("etcd_debugging_mvcc_watcher_total");
  }
}
