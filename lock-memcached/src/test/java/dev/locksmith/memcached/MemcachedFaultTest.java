package dev.locksmith.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchException;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockUri;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreFailure;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.CheckedOperationTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What happens to held locks when memcached is paused, killed, flushed, runs out of memory, or one
 * of several servers dies: each against real memcached processes started for the test.
 */
class MemcachedFaultTest {

  private static final Duration SLACK = Duration.ofSeconds(2);

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    // Clients first, servers last (they were registered first).
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        // A client of a broken server may fail to release; its items expire or die with it.
      }
    }
  }

  private MemcachedServer server(int megabytes) {
    MemcachedServer s = MemcachedServer.start(megabytes);
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
      "memcached SIGSTOPped past the lease: the holder's renewals fail, onLost fires, acquires"
          + " fail with LockStoreException; after SIGCONT another client takes the lock")
  void pausedPastLease() {
    MemcachedServer server = server(64);
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
          .hasMessageContaining("the store did not answer in time")
          .hasMessageContaining(server.address());
      await()
          .atMost(lease.plus(SLACK))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> lost.get() != null);
      assertThat(held.isValid()).isFalse();
    } finally {
      server.resume();
    }
    Lease next =
        await()
            .atMost(Duration.ofSeconds(3).plus(lease).plus(SLACK))
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
      "memcached's clock tick held back by a pause: a lease taken on the stale clock still lasts"
          + " until the holder's expiresAt")
  void lateClockTickKeepsLease() {
    MemcachedServer server = server(64);
    LockClient a = client(server.uri());
    LockClient b = client(server.uri());
    a.lock("late-tick-warm-up").tryAcquire().orElseThrow().release();
    b.lock("late-tick-warm-up").tryAcquire().orElseThrow().release();
    // Memcached reads CLOCK_MONOTONIC (System.nanoTime's clock) in whole seconds from a timer
    // that re-arms a second after it runs, and stamps expiries on that reading. Put its tick at
    // half past a second: a tick held back by a pause runs on resume.
    long second = TimeUnit.SECONDS.toNanos(1);
    long uptime = server.stat("uptime");
    server.pause();
    long x = (System.nanoTime() + second * 7 / 10) / second * second + second;
    parkUntil(x + second / 2);
    server.resume();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> server.stat("uptime") > uptime);
    // Just before the next tick the clock reads x, nearly a second behind: take a 1 s lease then.
    parkUntil(x + second * 14 / 10);
    Lease held =
        a.lock("late-tick")
            .withLeaseTime(Duration.ofSeconds(1))
            .withAutoRenew(false)
            .tryAcquire()
            .orElseThrow();
    // The next tick comes late, after x + 2 s: it moves memcached's clock two seconds at once.
    server.pause();
    parkUntil(x + second * 22 / 10);
    server.resume();
    Lease next =
        await()
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> b.lock("late-tick").tryAcquire(), Optional::isPresent)
            .orElseThrow();
    Instant taken = Instant.now();
    assertThat(taken).as("when the rival held the lock").isAfterOrEqualTo(held.expiresAt());
    next.release();
  }

  /** Parks until {@code System.nanoTime()} reaches {@code nanoTime}. */
  private static void parkUntil(long nanoTime) {
    for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  @Test
  @DisplayName(
      "memcached killed and restarted: the restart forgets the lock, another client can take it"
          + " at once with a greater token, and the old holder learns at its next renewal")
  void killedAndRestarted() {
    MemcachedServer server = server(64);
    LockClient a = client(server.uri());
    LockClient b = client(server.uri());
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    Lease held =
        a.lock("restart")
            .withLeaseTime(Duration.ofSeconds(3))
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.set(why));
    long heldToken = held.fencingToken();
    server.kill();
    assertThatThrownBy(() -> b.lock("restart").tryAcquire())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("the store is unavailable");
    server.restart();
    Lease next =
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(() -> b.lock("restart").tryAcquire(), Optional::isPresent)
            .orElseThrow();
    // This is the hazard of a store without persistence: two holders until the old one renews.
    assertThat(next.fencingToken()).isGreaterThan(heldToken);
    await()
        .atMost(Duration.ofSeconds(3).plus(SLACK))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> lost.get() != null);
    assertThat(held.isValid()).isFalse();
    next.release();
  }

  @Test
  @DisplayName(
      "a server with CAS disabled (-C) is refused instead of releasing without an owner check")
  void serverWithoutCasIsRefused() {
    MemcachedServer s = MemcachedServer.startWithoutCas();
    toClose.add(s);
    LockClient a = client(s.uri());
    assertThatThrownBy(() -> a.lock("no-cas").tryAcquire())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("CAS disabled (-C)");
    LockClient noFencing = client(s.uri() + "?fencing=false");
    Lease lease = noFencing.lock("no-cas-2").tryAcquire().orElseThrow();
    assertThatThrownBy(lease::release)
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("CAS disabled (-C)");
  }

  @Test
  @DisplayName("flush_all drops the lock: the next renewal notices and onLost fires before expiry")
  void flushAllIsNoticedAtRenewal() {
    MemcachedServer server = server(64);
    LockClient a = client(server.uri());
    Duration lease = Duration.ofSeconds(6);
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    long start = System.nanoTime();
    Lease held =
        a.lock("flushed")
            .withLeaseTime(lease)
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.set(why));
    server.flushAll();
    // Renewal runs every lease/3 = 2 s; it must find the item gone well before the lease ends.
    await()
        .atMost(lease.dividedBy(3).plus(SLACK))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> lost.get() != null);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isLessThan(lease.toMillis());
    assertThat(lost.get().getMessage()).contains("no longer holds it");
    assertThat(held.isValid()).isFalse();
  }

  @Test
  @DisplayName(
      "eviction under a tiny memory limit drops the lock: the next renewal notices, onLost fires")
  void evictionIsNoticedAtRenewal() throws Exception {
    MemcachedServer server = server(2);
    LockClient a = client(server.uri());
    Duration lease = Duration.ofSeconds(6);
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    Lease held =
        a.lock("evicted")
            .withLeaseTime(lease)
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.set(why));
    MemcachedClient filler = connected(server);
    // Items the size of a lock record, so they compete in the lock item's slab class.
    String value = "x".repeat(80);
    int written = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (lost.get() == null && System.nanoTime() - deadline < 0) {
      List<Future<Boolean>> batch = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        batch.add(filler.set("fill:" + written++, 3600, value));
      }
      for (Future<Boolean> f : batch) {
        f.get(5, TimeUnit.SECONDS);
      }
    }
    assertThat(server.stat("evictions")).as("evictions").isPositive();
    assertThat(lost.get()).as("onLost after %d filler items", written).isNotNull();
    assertThat(lost.get().getMessage()).contains("no longer holds it");
    assertThat(held.isValid()).isFalse();
  }

  @Test
  @DisplayName(
      "several servers: a dead server's locks fail fast (no remap in Cancel mode), other servers"
          + " keep working, and a client whose server list lacks the dead one admits a second"
          + " holder")
  void deadServerOfSeveral() {
    MemcachedServer s1 = server(64);
    MemcachedServer s2 = server(64);
    String both = "memcached://" + s1.address() + "," + s2.address();
    LockClient a = client(both);
    LockClient b = client(both);
    MemcachedLockStore probe = storeFor(both);
    String onS1 = nameOn(probe, s1.port(), "on-s1-");
    String onS2 = nameOn(probe, s2.port(), "on-s2-");
    Duration lease = Duration.ofSeconds(4);
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    Lease held1 =
        a.lock(onS1)
            .withLeaseTime(lease)
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.set(why));
    Lease held2 = a.lock(onS2).withLeaseTime(lease).tryAcquire().orElseThrow();

    s1.kill();
    // The client does not send s1's keys elsewhere: they fail, so no second holder through it.
    assertThatThrownBy(() -> b.lock(onS1).tryAcquire()).isInstanceOf(LockStoreException.class);
    // s2's locks are untouched.
    assertThat(b.lock(onS2).tryAcquire()).isEmpty();

    // A client configured with the surviving server only (an operator removed the dead one, or a
    // deployment with another server list) maps the name to s2 and takes it: two holders.
    LockClient c = client("memcached://" + s2.address());
    Lease second = c.lock(onS1).withLeaseTime(lease).tryAcquire().orElseThrow();
    assertThat(held1.isValid()).as("the first holder's lease, by its own clock").isTrue();
    assertThat(second.isValid()).isTrue();

    // The first holder cannot renew on the dead server and is told when its lease runs out.
    await()
        .atMost(lease.plus(SLACK))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> lost.get() != null);
    assertThat(held1.isValid()).isFalse();
    assertThat(held2.isValid()).as("the lock on the live server").isTrue();
    second.release();
    held2.release();
  }

  @Test
  @DisplayName(
      "a restarted server hands a new holder the very CAS id the old holder last wrote: the old"
          + " holder's extend and release read first, find the new holder, and spare it")
  void casIdReusedAfterRestart() throws Exception {
    MemcachedServer server = server(64);
    MemcachedLockStore alice = storeFor(server.uri() + "?fencing=false");
    LockKey key = LockKey.exclusive("cas-reuse");
    String itemKey = alice.lockKey("cas-reuse");
    MemcachedClient raw = connected(server);
    // Move the server's CAS counter off its start, so the restarted server can be steered to it.
    for (int i = 0; i < 10; i++) {
      raw.set("filler", 60, "x").get(1, TimeUnit.SECONDS);
    }
    assertThat(alice.tryAcquire(key, "alice", Duration.ofSeconds(30)).isAcquired()).isTrue();
    long aliceCas = raw.gets(itemKey).getCas();

    server.kill();
    server.restart();
    MemcachedClient raw2 = connected(server);
    // A restarted memcached counts CAS ids from 1 again: step it to just below alice's id.
    long cas = 0;
    while (cas < aliceCas - 1) {
      raw2.set("filler", 60, "x").get(1, TimeUnit.SECONDS);
      cas = raw2.gets("filler").getCas();
    }
    assertThat(cas).isEqualTo(aliceCas - 1);
    MemcachedLockStore bob = storeFor(server.uri() + "?fencing=false");
    assertThat(bob.tryAcquire(key, "bob", Duration.ofSeconds(30)).isAcquired()).isTrue();
    assertThat(raw2.gets(itemKey).getCas()).as("bob's item got alice's CAS id").isEqualTo(aliceCas);

    // A delete or CAS with alice's last CAS id would now hit bob's item. Alice's client notices
    // its dead connection only when it writes (that first call fails), then reconnects.
    Boolean extended =
        await()
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(10))
            .ignoreExceptions()
            .until(() -> alice.extend(key, "alice", Duration.ofSeconds(30)), r -> true);
    assertThat(extended).isFalse();
    assertThat(alice.release(key, "alice")).isEqualTo(ReleaseOutcome.NOT_HELD);
    assertThat(bob.read(key).owner()).isEqualTo("bob");
    assertThat(bob.release(key, "bob")).isEqualTo(ReleaseOutcome.RELEASED);
  }

  @Test
  @DisplayName(
      "the store throws spymemcached's failures as they come, and classifies them: a paused"
          + " server's timeout is TIMED_OUT, a killed server's cancelled operation UNAVAILABLE")
  void storeFailuresAreClassified() {
    MemcachedServer server = server(64);
    MemcachedLockStore store = storeFor(server.uri());
    LockKey key = LockKey.exclusive("classified");
    server.pause();
    Exception timedOut;
    try {
      timedOut = catchException(() -> store.tryAcquire(key, "alice", Duration.ofSeconds(2)));
    } finally {
      server.resume();
    }
    assertThat(timedOut).isInstanceOf(CheckedOperationTimeoutException.class);
    assertThat(store.classify(timedOut)).isEqualTo(StoreFailure.TIMED_OUT);
    server.kill();
    Exception cancelled = catchException(() -> store.read(key));
    assertThat(store.classify(cancelled)).as("%s", cancelled).isEqualTo(StoreFailure.UNAVAILABLE);
  }

  /** A spymemcached client of {@code server}, connected (Cancel mode cancels earlier calls). */
  private MemcachedClient connected(MemcachedServer server) throws Exception {
    MemcachedClient c =
        new MemcachedClient(
            MemcachedLockProvider.connectionFactory(Duration.ofSeconds(2), 1),
            List.of(new InetSocketAddress("127.0.0.1", server.port())));
    toClose.add(c::shutdown);
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> !c.getAvailableServers().isEmpty());
    return c;
  }

  private MemcachedLockStore storeFor(String uri) {
    MemcachedLockStore s =
        (MemcachedLockStore)
            new MemcachedLockProvider().open(LockUri.parse(uri), LockOptions.defaults());
    toClose.add(s);
    return s;
  }

  /** A lock name whose item the client places on the server at {@code port}. */
  private static String nameOn(MemcachedLockStore store, int port, String stem) {
    for (int i = 0; i < 10_000; i++) {
      String name = stem + i;
      SocketAddress at =
          store.client().getNodeLocator().getPrimary(store.lockKey(name)).getSocketAddress();
      if (at instanceof InetSocketAddress && ((InetSocketAddress) at).getPort() == port) {
        return name;
      }
    }
    throw new AssertionError("no name among 10000 hashes to port " + port);
  }
}
