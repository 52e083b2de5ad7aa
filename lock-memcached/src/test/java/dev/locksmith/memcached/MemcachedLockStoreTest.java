package dev.locksmith.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchException;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.memcached.internal.ErrorStatusException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreFailure;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.OperationTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The store's own operations against a real memcached, beyond what the kit checks. */
class MemcachedLockStoreTest {

  private static final Duration LEASE = Duration.ofSeconds(2);

  private static MemcachedServer server;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private String name;

  @BeforeAll
  static void startServer() {
    server = MemcachedServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void name(TestInfo info) {
    name = "store-test:" + info.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private MemcachedLockStore store() {
    return store("");
  }

  private MemcachedLockStore store(String query) {
    MemcachedLockStore s =
        (MemcachedLockStore)
            new MemcachedLockProvider()
                .open(
                    dev.locksmith.spi.LockUri.parse(server.uri() + query), LockOptions.defaults());
    toClose.add(s);
    return s;
  }

  private MemcachedClient rawClient() throws IOException {
    MemcachedClient c =
        new MemcachedClient(
            MemcachedLockProvider.connectionFactory(Duration.ofSeconds(1), 1),
            List.of(new InetSocketAddress("127.0.0.1", server.port())));
    toClose.add(c::shutdown);
    // FailureMode.Cancel cancels operations sent before the connection is up: wait for it.
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> !c.getAvailableServers().isEmpty());
    return c;
  }

  @Test
  @DisplayName("add takes a free lock, a second owner is busy, re-entry nests with the same token")
  void acquireBusyReenter() throws Exception {
    MemcachedLockStore store = store();
    LockKey key = LockKey.exclusive(name);
    Acquisition a = store.tryAcquire(key, "alice", LEASE);
    assertThat(a.isAcquired()).isTrue();
    assertThat(a.holds()).isEqualTo(1);
    assertThat(store.tryAcquire(key, "bob", LEASE).isAcquired()).isFalse();
    Acquisition again = store.tryAcquire(key, "alice", LEASE);
    assertThat(again.isAcquired()).isTrue();
    assertThat(again.holds()).isEqualTo(2);
    assertThat(again.token()).isEqualTo(a.token());
    assertThat(store.read(key)).isEqualTo(LockState.heldBy("alice", 2, null));
    assertThat(store.release(key, "bob")).isEqualTo(ReleaseOutcome.NOT_HELD);
    assertThat(store.extend(key, "bob", LEASE)).isFalse();
    assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
    assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(store.read(key)).isEqualTo(LockState.FREE);
    assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.NOT_HELD);
    Acquisition b = store.tryAcquire(key, "bob", LEASE);
    assertThat(b.isAcquired()).isTrue();
    assertThat(b.token()).isGreaterThan(a.token());
  }

  @Test
  @DisplayName(
      "an uncontended acquire reads nothing (add and incr pipelined, then the token CAS) and a"
          + " release reads once, with and without fencing")
  void acquireReadsNothing() throws Exception {
    for (boolean fencing : List.of(true, false)) {
      MemcachedLockStore store = fencing ? store() : store("?fencing=false");
      LockKey key = LockKey.exclusive(name + ":" + fencing);
      long last = -1;
      for (int i = 0; i < 5; i++) {
        long getsBefore = server.stat("cmd_get");
        Acquisition a = store.tryAcquire(key, "alice", LEASE);
        assertThat(a.isAcquired()).isTrue();
        assertThat(server.stat("cmd_get")).as("gets by acquire").isEqualTo(getsBefore);
        if (fencing) {
          assertThat(a.token()).isGreaterThan(last);
          last = a.token();
        }
        assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(server.stat("cmd_get")).as("gets by release").isEqualTo(getsBefore + 1);
      }
      assertThat(store.read(key)).isEqualTo(LockState.FREE);
    }
  }

  @Test
  @DisplayName(
      "one owner through two stores shares one nested hold: each release and extend acts on the"
          + " version the other wrote last")
  void sameOwnerThroughTwoStores() throws Exception {
    MemcachedLockStore first = store();
    MemcachedLockStore second = store();
    LockKey key = LockKey.exclusive(name);
    Acquisition a = first.tryAcquire(key, "alice", LEASE);
    assertThat(a.isAcquired()).isTrue();
    Acquisition nested = second.tryAcquire(key, "alice", LEASE);
    assertThat(nested.holds()).isEqualTo(2);
    assertThat(nested.token()).isEqualTo(a.token());
    assertThat(first.release(key, "alice")).isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
    assertThat(first.read(key)).isEqualTo(LockState.heldBy("alice", 1, null));
    assertThat(second.extend(key, "alice", LEASE)).isTrue();
    assertThat(second.read(key).holds()).isEqualTo(1);
    assertThat(first.release(key, "alice")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(second.release(key, "alice")).isEqualTo(ReleaseOutcome.NOT_HELD);
  }

  @Test
  @DisplayName("a release after expiry is NOT_HELD and leaves the next holder's item alone")
  void releaseAfterExpiryKeepsNextHolder() throws Exception {
    MemcachedLockStore store = store();
    LockKey key = LockKey.exclusive(name);
    Acquisition a = store.tryAcquire(key, "alice", Duration.ofSeconds(1));
    assertThat(a.isAcquired()).isTrue();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> store.tryAcquire(key, "bob", LEASE).isAcquired());
    assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.NOT_HELD);
    assertThat(store.extend(key, "alice", LEASE)).isFalse();
    assertThat(store.read(key).owner()).isEqualTo("bob");
  }

  @Test
  @DisplayName(
      "delete-with-CAS spares the next holder where a checked-then-plain delete would remove it")
  void casDeleteVersusPlainDelete() throws Exception {
    // The interleaving every owner-checked release faces: the holder reads its item (owner check
    // passes), its lease runs out, the next holder adds its own item, then the delete arrives.
    MemcachedLockStore store = store();
    MemcachedClient raw = rawClient();
    LockKey key = LockKey.exclusive(name);
    String itemKey = store.lockKey(name);
    assertThat(store.tryAcquire(key, "alice", Duration.ofSeconds(1)).isAcquired()).isTrue();
    CASValue<Object> checked = raw.gets(itemKey);
    assertThat(checked).isNotNull();
    assertThat(checked.getValue().toString()).endsWith(" alice");
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> store.tryAcquire(key, "bob", LEASE).isAcquired());

    // What this store sends: delete with the CAS id of the checked version. Bob's item survives.
    assertThat(raw.delete(itemKey, checked.getCas()).get(1, TimeUnit.SECONDS)).isFalse();
    assertThat(store.read(key).owner()).isEqualTo("bob");
    assertThat(store.tryAcquire(key, "carol", LEASE).isAcquired()).isFalse();

    // What a plain-delete store sends after the same check: Bob's item is gone while Bob still
    // believes he holds, and Carol gets the lock too: two holders.
    assertThat(raw.delete(itemKey).get(1, TimeUnit.SECONDS)).isTrue();
    assertThat(store.read(key)).isEqualTo(LockState.FREE);
    assertThat(store.tryAcquire(key, "carol", LEASE).isAcquired()).isTrue();
    assertThat(store.extend(key, "bob", LEASE)).isFalse();
  }

  @Test
  @DisplayName(
      "the item lives at least the lease asked, counted from before the request, and at most two"
          + " seconds more")
  void itemOutlivesLease() throws Exception {
    MemcachedLockStore store = store();
    // Leases arrive in whole seconds: the engine rounds them up to the store's granularity.
    assertThat(MemcachedLockStore.expirySeconds(Duration.ofSeconds(1))).isEqualTo(3);
    assertThat(MemcachedLockStore.expirySeconds(Duration.ofSeconds(30))).isEqualTo(32);
    // Several attempts land at different points of memcached's one-second clock tick.
    for (int i = 0; i < 4; i++) {
      LockKey key = LockKey.exclusive(name + ":" + i);
      long start = System.nanoTime();
      assertThat(store.tryAcquire(key, "alice", Duration.ofSeconds(1)).isAcquired()).isTrue();
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> !store.read(key).locked());
      long livedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      // Up to 3 s by memcached's clock; a second more for the polling and a late tick.
      assertThat(livedMillis).as("attempt %d", i).isBetween(1000L, 4000L);
    }
  }

  @Test
  @DisplayName("fencing tokens keep rising when the counter item is lost (evicted, deleted)")
  void tokensRiseAcrossCounterLoss() throws Exception {
    MemcachedLockStore store = store();
    MemcachedClient raw = rawClient();
    LockKey key = LockKey.exclusive(name);
    long last = 0;
    for (int i = 0; i < 5; i++) {
      Acquisition a = store.tryAcquire(key, "owner-" + i, LEASE);
      assertThat(a.isAcquired()).isTrue();
      assertThat(a.token()).isGreaterThan(last);
      last = a.token();
      assertThat(store.release(key, "owner-" + i)).isEqualTo(ReleaseOutcome.RELEASED);
      // Lose the counter, as eviction or a flush would.
      assertThat(raw.delete(store.fenceKey(name)).get(1, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  @DisplayName("concurrent owners never hold at once and every hold draws a higher token")
  void concurrentMutualExclusion() throws Exception {
    MemcachedLockStore store = store();
    LockKey key = LockKey.exclusive(name);
    int threads = 8;
    int rounds = 40;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    Set<Long> tokens = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<Long> order = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String owner = "worker-" + t;
      done.add(
          pool.submit(
              () -> {
                go.await();
                int held = 0;
                while (held < rounds) {
                  Acquisition a = store.tryAcquire(key, owner, Duration.ofSeconds(10));
                  if (!a.isAcquired()) {
                    continue;
                  }
                  if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                  }
                  order.add(a.token());
                  tokens.add(a.token());
                  inside.decrementAndGet();
                  assertThat(store.release(key, owner)).isEqualTo(ReleaseOutcome.RELEASED);
                  held++;
                }
                return null;
              }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(overlaps.get()).isZero();
    assertThat(tokens).hasSize(threads * rounds);
    assertThat(order).isSorted();
  }

  @Test
  @DisplayName("any name, however long or strange, maps to its own valid key")
  void strangeNames() throws Exception {
    MemcachedLockStore store = store();
    String longName = "n".repeat(256);
    String longName2 = "n".repeat(255) + "m";
    List<String> names =
        List.of(
            name + " with spaces",
            name + "\u00e9\u6f22\uD83D\uDD12",
            name + "#hash",
            longName,
            longName2,
            "get x\r\nflush_all");
    Set<String> keys = new HashSet<>();
    for (String n : names) {
      String k = store.lockKey(n);
      assertThat(k.length()).isLessThanOrEqualTo(250);
      assertThat(k.chars().allMatch(c -> c > ' ' && c < 0x7f)).as(k).isTrue();
      keys.add(k);
      LockKey key = LockKey.exclusive(n);
      assertThat(store.tryAcquire(key, "alice", LEASE).isAcquired()).as(n).isTrue();
      assertThat(store.tryAcquire(key, "bob", LEASE).isAcquired()).as(n).isFalse();
    }
    assertThat(keys).hasSize(names.size());
    for (String n : names) {
      assertThat(store.release(LockKey.exclusive(n), "alice")).isEqualTo(ReleaseOutcome.RELEASED);
    }
  }

  @Test
  @DisplayName("a key holding something other than a lock record fails with LockStoreException")
  void foreignValue() throws Exception {
    MemcachedLockStore store = store();
    MemcachedClient raw = rawClient();
    raw.set(store.lockKey(name), 60, "not a lock").get(1, TimeUnit.SECONDS);
    assertThatThrownBy(() -> store.tryAcquire(LockKey.exclusive(name), "alice", LEASE))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("another program writes to this key");
  }

  @Test
  @DisplayName(
      "an error answer of memcached (value too large) fails as it came and is classified REFUSED")
  void errorAnswerIsRefused() {
    MemcachedLockStore store = store();
    // Memcached's largest item is 1 MB by default; owners this long reach the store only directly.
    Exception e =
        catchException(() -> store.tryAcquire(LockKey.exclusive(name), "o".repeat(2 << 20), LEASE));
    assertThat(e).isInstanceOf(ErrorStatusException.class).hasMessageContaining("ERR_2BIG");
    assertThat(store.classify(e)).isEqualTo(StoreFailure.REFUSED);
    // The unchecked timeout of spymemcached's synchronous calls is a timeout too.
    assertThat(store.classify(new OperationTimeoutException("Timeout waiting for value")))
        .isEqualTo(StoreFailure.TIMED_OUT);
  }

  @Test
  @DisplayName("a client on the text protocol is refused: release needs delete-with-CAS")
  void textProtocolRefused() throws IOException {
    MemcachedClient ascii =
        new MemcachedClient(
            new ConnectionFactoryBuilder()
                .setProtocol(ConnectionFactoryBuilder.Protocol.TEXT)
                .setDaemon(true)
                .build(),
            List.of(new InetSocketAddress("127.0.0.1", server.port())));
    toClose.add(ascii::shutdown);
    assertThatThrownBy(() -> new MemcachedLockStore(ascii))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("binary protocol");
  }

  @Test
  @DisplayName("a store built on the caller's client works and leaves that client running")
  void constructorOnCallersClient() throws Exception {
    MemcachedClient mine = rawClient();
    try (LockClient locks =
        LockClient.of(
            new MemcachedLockStore(mine, "app:", MemcachedLockStore.Fencing.ON),
            LockOptions.defaults())) {
      assertThat(locks.capabilities())
          .containsExactlyInAnyOrder(
              Capability.REENTRANCY, Capability.FENCING, Capability.DURABLE_FENCING);
      try (var lease = locks.lock(name).tryAcquire().orElseThrow()) {
        assertThat(mine.get("app:lock:" + name)).isNotNull();
        assertThat(lease.fencingToken()).isPositive();
      }
    }
    // Closing the lock client did not shut down the caller's memcached client.
    assertThat(mine.set(name, 10, "still usable").get(1, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  @DisplayName("Fencing.OFF on the caller's client: no tokens, no counter item, no fencing promise")
  void constructorWithoutFencing() throws Exception {
    MemcachedClient mine = rawClient();
    MemcachedLockStore store =
        new MemcachedLockStore(mine, "unfenced-", MemcachedLockStore.Fencing.OFF);
    try (LockClient locks = LockClient.of(store, LockOptions.defaults())) {
      assertThat(locks.capabilities()).containsExactly(Capability.REENTRANCY);
      assertThatThrownBy(() -> store.fenceKey(name))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Fencing.OFF");
      try (var lease = locks.lock(name).tryAcquire().orElseThrow()) {
        assertThat(mine.get("unfenced-lock:" + name)).isNotNull();
        assertThatThrownBy(lease::fencingToken).isInstanceOf(UnsupportedCapabilityException.class);
      }
    }
    // Nothing was drawn: the one counter this prefix would use was never created.
    assertThat(mine.get("unfenced-fence#0")).isNull();
  }

  @Test
  @DisplayName("a null Fencing is refused, naming the argument")
  void nullFencingRefused() throws IOException {
    MemcachedClient mine = rawClient();
    assertThatThrownBy(() -> new MemcachedLockStore(mine, "app:", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("fencing must not be null");
  }

  @Test
  @DisplayName("leases under one second are refused with a message naming memcached's minimum")
  void subSecondLeaseRefused() {
    try (LockClient locks = LockClient.open(server.uri())) {
      assertThatThrownBy(() -> locks.lock(name).withLeaseTime(Duration.ofMillis(500)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at least 1000 ms");
    }
    assertThatThrownBy(() -> LockClient.open(server.uri() + "?leaseTime=900ms").close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1000 ms");
  }

  @Test
  @DisplayName("read-write locks are refused: one item cannot give each reader its own expiry")
  void readWriteRefused() {
    MemcachedLockStore store = store();
    try (LockClient locks = LockClient.open(server.uri())) {
      assertThat(locks.capabilities()).doesNotContain(Capability.READ_WRITE);
      assertThatThrownBy(() -> locks.readWriteLock(name))
          .isInstanceOf(UnsupportedCapabilityException.class);
    }
    assertThatThrownBy(() -> store.tryAcquire(new LockKey(name, LockMode.READ), "alice", LEASE))
        .isInstanceOf(UnsupportedCapabilityException.class);
  }
}
