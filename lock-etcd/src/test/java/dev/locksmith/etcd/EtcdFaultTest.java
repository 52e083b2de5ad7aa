package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.etcd.internal.EtcdKv.Txn;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What happens to held locks when etcd is paused, or killed and restarted on its data directory:
 * each against a real etcd process started for the test.
 */
class EtcdFaultTest {

  /** Room for a loaded machine: etcd's lease checks, a write, and the engine's renewal timing. */
  private static final Duration SLACK = Duration.ofSeconds(2);

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        // A client of a broken server may fail to release; its keys expire with their leases.
      }
    }
  }

  private EtcdServer server() {
    EtcdServer s = EtcdServer.start();
    toClose.add(s);
    return s;
  }

  private LockClient client(String uri) {
    LockClient c = LockClient.open(uri, LockOptions.defaults());
    toClose.add(c);
    return c;
  }

  @Test
  @DisplayName(
      "etcd SIGSTOPped past the lease: acquires fail with 'timed out', the holder is told its"
          + " lease is lost; after SIGCONT another client takes the lock with a greater token")
  void pausedPastLease() {
    EtcdServer server = server();
    LockClient a = client(server.uri());
    LockClient b = client(server.uri());
    Duration lease = Duration.ofSeconds(2);
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    Lease held =
        a.lock("paused")
            .withLeaseTime(lease)
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.set(why));
    long heldToken = held.fencingToken();
    server.pause();
    try {
      assertThatThrownBy(() -> b.lock("paused").tryAcquire())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("timed out after 1000 ms")
          .hasMessageContaining(server.address());
      await()
          .atMost(lease.plus(SLACK))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> lost.get() != null);
      assertThat(held.isValid()).isFalse();
    } finally {
      server.resume();
    }
    // After SIGCONT etcd's leader finds the lease expired and deletes the key.
    Lease next =
        await()
            .atMost(lease.plus(SLACK).plus(SLACK))
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(() -> b.lock("paused").tryAcquire(), Optional::isPresent)
            .orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(heldToken);
    assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
    next.release();
  }

  @Test
  @DisplayName(
      "etcd SIGKILLed: acquires fail with 'connection refused'; restarted on its data directory,"
          + " the same client acquires again by itself and the token keeps increasing")
  void killedAndRestarted() {
    EtcdServer server = server();
    LockClient a = client(server.uri());
    LockClient b = client(server.uri());
    long before;
    try (Lease first = a.lock("restart").tryAcquire().orElseThrow()) {
      before = first.fencingToken();
    }
    server.kill();
    assertThatThrownBy(() -> b.lock("restart").tryAcquire())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining(server.address() + ": connection refused");
    server.restart();
    Lease next =
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(() -> b.lock("restart").tryAcquire(), Optional::isPresent)
            .orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(before);
    next.release();
  }

  @Test
  @DisplayName(
      "a hold survives a kill and restart of etcd (the key and its lease are on disk): no rival"
          + " gets in, and the holder keeps renewing")
  void holdSurvivesRestart() {
    EtcdServer server = server();
    LockClient a = client(server.uri());
    LockClient b = client(server.uri());
    // A lease long enough for a restart on a loaded machine; the renewals in between fail.
    Lease held = a.lock("durable").withLeaseTime(Duration.ofSeconds(10)).tryAcquire().orElseThrow();
    server.kill();
    server.restart();
    assertThat(
            await()
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> b.lock("durable").tryAcquire(), o -> true))
        .as("a rival right after the restart")
        .isEmpty();
    assertThat(held.isValid()).isTrue();
    held.extend(Duration.ofSeconds(10));
    held.release();
    assertThat(b.lock("durable").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("a key that is not a lock record is reported, never taken as busy or free")
  void foreignValueIsReported() {
    EtcdServer server = server();
    LockClient a = client(server.uri());
    // Another program's value where the lock would live.
    byte[] key = "locksmith/lock/foreign".getBytes(StandardCharsets.UTF_8);
    server.kv().commit(Txn.ifAbsent(key).thenPut("hello".getBytes(StandardCharsets.UTF_8), 0));
    assertThatThrownBy(() -> a.lock("foreign").tryAcquire())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("holds something else");
  }
}
