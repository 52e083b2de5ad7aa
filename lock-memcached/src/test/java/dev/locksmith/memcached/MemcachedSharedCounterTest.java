package dev.locksmith.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.LockOptions;
import dev.locksmith.memcached.fixture.MemcachedInspector;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockUri;
import dev.locksmith.spi.ReleaseOutcome;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The shared fencing counters against real memcached servers: what a released lock leaves behind,
 * tokens after the counters are evicted, the race of two clients creating a missing counter, the
 * per-name counters of earlier versions, and counter placement over several servers.
 */
class MemcachedSharedCounterTest {

  private static final Duration LEASE = Duration.ofSeconds(2);

  private static MemcachedServer server;
  private final List<AutoCloseable> toClose = new ArrayList<>();

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

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    toClose.clear();
  }

  private MemcachedLockStore store(String uri, String prefix) {
    MemcachedLockStore s =
        (MemcachedLockStore)
            new MemcachedLockProvider()
                .open(LockUri.parse(uri), LockOptions.builder().keyPrefix(prefix).build());
    toClose.add(s);
    return s;
  }

  private static String prefix(String test) {
    return test + System.nanoTime() + ":";
  }

  private static long clockNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Test
  @DisplayName(
      "2,000 distinct names acquired (some nested) and released leave one counter item, and a"
          + " crashed holder's names leave nothing more once their items expire")
  void releasedNamesLeaveNothing() throws Exception {
    String prefix = prefix("footprint");
    MemcachedLockStore store = store(server.uri(), prefix);
    MemcachedInspector inspector = server.inspector();
    for (int i = 0; i < 2_000; i++) {
      LockKey key = LockKey.exclusive("order:" + i);
      assertThat(store.tryAcquire(key, "alice", LEASE).isAcquired()).isTrue();
      if (i % 10 == 0) {
        assertThat(store.tryAcquire(key, "alice", LEASE).holds()).isEqualTo(2);
        assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
      }
      assertThat(store.release(key, "alice")).isEqualTo(ReleaseOutcome.RELEASED);
    }
    assertThat(inspector.keys(prefix)).containsExactly(store.fenceKey("order:0"));

    // A holder that never releases: its items expire with their lease (plus memcached's two
    // seconds), and nothing per name stays.
    for (int i = 0; i < 20; i++) {
      assertThat(
              store
                  .tryAcquire(LockKey.exclusive("crashed:" + i), "bob", Duration.ofSeconds(1))
                  .isAcquired())
          .isTrue();
    }
    assertThat(inspector.entries(prefix)).isEqualTo(21);
    await()
        .atMost(Duration.ofSeconds(8))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> inspector.entries(prefix) == 1);
  }

  @Test
  @DisplayName(
      "after the counters are evicted, a name's next token and a never-seen name's token are above"
          + " every token handed out before")
  void tokensRiseAfterEviction() throws Exception {
    String prefix = prefix("evicted");
    MemcachedLockStore store = store(server.uri(), prefix);
    MemcachedInspector inspector = server.inspector();
    LockKey key = LockKey.exclusive("order:1");
    LockKey held = LockKey.exclusive("order:held");
    long highest = 0;
    for (int i = 0; i < 3; i++) {
      Acquisition a = store.tryAcquire(key, "owner-" + i, LEASE);
      assertThat(a.token()).isGreaterThan(highest);
      highest = a.token();
      assertThat(store.release(key, "owner-" + i)).isEqualTo(ReleaseOutcome.RELEASED);
    }
    Acquisition live = store.tryAcquire(held, "carol", Duration.ofSeconds(30));
    highest = Math.max(highest, live.token());
    for (int round = 0; round < 3; round++) {
      inspector.evictIdle(prefix);
      // Only the live hold stays.
      assertThat(inspector.keys(prefix)).containsExactly(store.lockKey("order:held"));
      Acquisition again = store.tryAcquire(key, "dave", LEASE);
      assertThat(again.token()).isGreaterThan(highest);
      highest = again.token();
      assertThat(store.release(key, "dave")).isEqualTo(ReleaseOutcome.RELEASED);
      inspector.evictIdle(prefix);
      LockKey neverSeen = LockKey.exclusive("never-seen:" + round);
      Acquisition fresh = store.tryAcquire(neverSeen, "erin", LEASE);
      assertThat(fresh.token()).isGreaterThan(highest);
      highest = fresh.token();
      assertThat(store.release(neverSeen, "erin")).isEqualTo(ReleaseOutcome.RELEASED);
    }
    assertThat(store.read(held).owner()).isEqualTo("carol");
  }

  @Test
  @DisplayName(
      "many clients racing for fresh names, each time after the counter was lost: exactly one wins"
          + " each name and no acquire fails (two creations of a missing counter race in"
          + " memcached, and one of them is answered NOT_STORED)")
  void counterCreationRaceNeverFailsAWonAcquire() throws Exception {
    // Memcached's create-if-missing incr looks the key up and adds it in two steps: of two
    // connections served at once by two worker threads, one is answered NOT_STORED. The window
    // is a microsecond or so, so this races many times, within a time budget, and stops at the
    // first failure. Before the fix, each race failed roughly once in a thousand (2 cores).
    String prefix = prefix("race");
    int clients = 8;
    int namesPerRound = 4;
    List<MemcachedLockStore> stores = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      stores.add(store(server.uri(), prefix));
    }
    MemcachedInspector inspector = server.inspector();
    ExecutorService pool = Executors.newFixedThreadPool(clients * namesPerRound);
    toClose.add(pool::shutdownNow);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    int races = 0;
    List<String> failures = new ArrayList<>();
    for (int round = 0; failures.isEmpty() && System.nanoTime() - deadline < 0; round++) {
      List<LockKey> keys = new ArrayList<>();
      Set<String> counters = new HashSet<>();
      for (int j = 0; j < namesPerRound; j++) {
        LockKey key = LockKey.exclusive("fresh:" + round + ":" + j);
        keys.add(key);
        counters.add(stores.get(0).fenceKey(key.name()));
      }
      // Lose the counters these names draw from, as eviction would: every race below creates one.
      inspector.delete(List.copyOf(counters));
      CyclicBarrier go = new CyclicBarrier(clients * namesPerRound);
      List<List<Future<Acquisition>>> attempts = new ArrayList<>();
      for (LockKey key : keys) {
        List<Future<Acquisition>> perName = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
          MemcachedLockStore s = stores.get(i);
          String owner = "client-" + i;
          perName.add(
              pool.submit(
                  () -> {
                    go.await(10, TimeUnit.SECONDS);
                    return s.tryAcquire(key, owner, LEASE);
                  }));
        }
        attempts.add(perName);
      }
      for (int j = 0; j < keys.size(); j++) {
        races++;
        List<Integer> winners = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
          try {
            if (attempts.get(j).get(i).get(30, TimeUnit.SECONDS).isAcquired()) {
              winners.add(i);
            }
          } catch (ExecutionException e) {
            failures.add(keys.get(j).name() + ", client-" + i + ": " + e.getCause());
          }
        }
        if (winners.size() != 1) {
          failures.add(keys.get(j).name() + ": winners " + winners);
        }
        // Released only once every attempt has answered: a later one would take the freed lock.
        for (int i : winners) {
          assertThat(stores.get(i).release(keys.get(j), "client-" + i))
              .isEqualTo(ReleaseOutcome.RELEASED);
        }
      }
    }
    assertThat(failures).as("failures in %d races", races).isEmpty();
  }

  @Test
  @DisplayName(
      "a name's per-name counter of an earlier version: the token is drawn above it, the shared"
          + " counter is raised past it, and it is deleted so that an earlier client creates it"
          + " again above the token")
  void earlierVersionCounterIsHonouredAndDropped() throws Exception {
    String prefix = prefix("upgrade");
    MemcachedLockStore store = store(server.uri(), prefix);
    MemcachedClient raw = rawClient(server.port());
    String legacyName = "order:legacy";
    String legacyKey = prefix + "fence:" + legacyName;

    // The shared counter exists (created at the clock now); then an earlier client locks a name
    // for the first time, creating its own counter at its clock, a little later: above the
    // shared counter.
    long first = store.tryAcquire(LockKey.exclusive("order:new"), "alice", LEASE).token();
    long oldToken = raw.incr(legacyKey, 1, clockNanos() + 1_000_000, 0);
    oldToken = raw.incr(legacyKey, 1, 0, 0);
    assertThat(oldToken).isGreaterThan(first);

    // This version's next holder of that name draws above the earlier client's token, and drops
    // the per-name counter.
    long token = store.tryAcquire(LockKey.exclusive(legacyName), "bob", LEASE).token();
    assertThat(token).isGreaterThan(oldToken);
    assertThat(raw.get(legacyKey)).isNull();
    assertThat(store.release(LockKey.exclusive(legacyName), "bob"))
        .isEqualTo(ReleaseOutcome.RELEASED);
    // The shared counter was raised past it: any name's next token is above it too.
    long other = store.tryAcquire(LockKey.exclusive("order:other"), "carol", LEASE).token();
    assertThat(other).isGreaterThan(token);

    // An earlier client holding the name next finds no counter and creates it at its clock:
    // above this version's token.
    long olderAgain = raw.incr(legacyKey, 1, clockNanos(), 0);
    assertThat(olderAgain).isGreaterThan(token);
    // And this version after it draws above that again.
    long after = store.tryAcquire(LockKey.exclusive(legacyName), "dave", LEASE).token();
    assertThat(after).isGreaterThan(olderAgain);
    assertThat(raw.get(legacyKey)).isNull();

    // A per-name counter below the shared one is dropped too, without raising anything.
    String lowKey = prefix + "fence:order:low";
    raw.incr(lowKey, 1, 5, 0);
    long low = store.tryAcquire(LockKey.exclusive("order:low"), "erin", LEASE).token();
    assertThat(low).isGreaterThan(after);
    assertThat(raw.get(lowKey)).isNull();
  }

  @Test
  @DisplayName(
      "with three servers, every name draws from the counter on its lock item's own server: at"
          + " most one counter item per server, tokens rising per name")
  void oneCounterPerServer() throws Exception {
    List<MemcachedServer> servers =
        List.of(MemcachedServer.start(), MemcachedServer.start(), MemcachedServer.start());
    servers.forEach(s -> toClose.add(s::close));
    String uri =
        "memcached://"
            + servers.stream().map(MemcachedServer::address).collect(Collectors.joining(","));
    String prefix = prefix("ring");
    MemcachedLockStore first = store(uri, prefix);
    MemcachedLockStore second = store(uri, prefix);
    MemcachedClient client = first.client();
    Set<String> counters = new HashSet<>();
    for (int i = 0; i < 300; i++) {
      String name = "order:" + i;
      LockKey key = LockKey.exclusive(name);
      String counter = first.fenceKey(name);
      assertThat(second.fenceKey(name)).isEqualTo(counter);
      assertThat(client.getNodeLocator().getPrimary(counter).getSocketAddress())
          .as(name)
          .isEqualTo(client.getNodeLocator().getPrimary(first.lockKey(name)).getSocketAddress());
      counters.add(counter);
      long a = first.tryAcquire(key, "alice", LEASE).token();
      assertThat(first.release(key, "alice")).isEqualTo(ReleaseOutcome.RELEASED);
      long b = second.tryAcquire(key, "bob", LEASE).token();
      assertThat(b).as(name).isGreaterThan(a);
      assertThat(second.release(key, "bob")).isEqualTo(ReleaseOutcome.RELEASED);
    }
    assertThat(counters).hasSize(3);
    long items = 0;
    for (MemcachedServer s : servers) {
      List<String> keys = s.inspector().keys(prefix);
      assertThat(keys).hasSize(1);
      items += keys.size();
    }
    assertThat(items).isEqualTo(3);
  }

  private MemcachedClient rawClient(int port) throws Exception {
    MemcachedClient c =
        new MemcachedClient(
            MemcachedLockProvider.connectionFactory(Duration.ofSeconds(1), 1),
            List.of(new InetSocketAddress("127.0.0.1", port)));
    toClose.add(c::shutdown);
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> !c.getAvailableServers().isEmpty());
    return c;
  }
}
