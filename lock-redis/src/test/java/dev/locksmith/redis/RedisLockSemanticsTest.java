package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Redis store's own promises on a real server, for both strategies: exclusion, ownership,
 * reentrancy, fencing, expiry, read-write with writer preference, wake-ups and name encoding.
 */
class RedisLockSemanticsTest {

  static RedisServer redis;
  final List<LockClient> clients = new ArrayList<>();

  @BeforeAll
  static void start() {
    redis = RedisServer.startPersistent();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @AfterEach
  void closeClients() {
    clients.forEach(LockClient::close);
    clients.clear();
  }

  LockClient client(String strategy) {
    return client(strategy, LockOptions.defaults());
  }

  LockClient client(String strategy, LockOptions options) {
    LockClient c = LockClient.open(redis.uri() + "?strategy=" + strategy, options);
    clients.add(c);
    return c;
  }

  static String unique(String base) {
    return base + "-" + System.nanoTime();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "the store declares fencing, durable fencing (AOF on), reentrancy, read-write, wake-ups")
  void capabilities(String strategy) {
    assertThat(client(strategy).capabilities())
        .containsExactlyInAnyOrder(
            Capability.FENCING,
            Capability.DURABLE_FENCING,
            Capability.REENTRANCY,
            Capability.READ_WRITE,
            Capability.WAKE_ON_RELEASE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("a held lock is refused to another client until released, and tokens rise")
  void exclusionAndFencing(String strategy) throws Exception {
    String name = unique("x");
    LockClient a = client(strategy);
    LockClient b = client(strategy);
    Lease first = a.lock(name).acquire(Duration.ofSeconds(1));
    assertThat(b.lock(name).tryAcquire()).isEmpty();
    assertThat(b.lock(name).isLocked()).isTrue();
    first.release();
    Lease second = b.lock(name).acquire(Duration.ofSeconds(1));
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    second.release();
    assertThat(a.lock(name).isLocked()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("the same owner gets nested holds with the same token; the lock frees at zero")
  void reentrancy(String strategy) throws Exception {
    String name = unique("re");
    LockClient a = client(strategy);
    LockClient b = client(strategy);
    Lease outer = a.lock(name).withOwner("worker-1").acquire(Duration.ofSeconds(1));
    Lease inner = a.lock(name).withOwner("worker-1").acquire(Duration.ofSeconds(1));
    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    inner.release();
    assertThat(b.lock(name).tryAcquire()).isEmpty();
    outer.release();
    assertThat(b.lock(name).tryAcquire()).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "an expired lease frees the lock, and its late release does not touch the next holder")
  void expiryAndOwnerCheckedRelease(String strategy) throws Exception {
    String name = unique("exp");
    LockClient a = client(strategy, LockOptions.builder().autoRenew(false).build());
    LockClient b = client(strategy);
    Lease old = a.lock(name).withLeaseTime(Duration.ofMillis(300)).acquire(Duration.ZERO);
    Lease next = b.lock(name).acquire(Duration.ofSeconds(3));
    assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
    assertThatThrownBy(old::release).isInstanceOf(LeaseLostException.class);
    assertThat(next.isValid()).isTrue();
    assertThat(a.lock(name).tryAcquire()).isEmpty();
    next.release();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("auto-renewal keeps a short lease held well past its lease time")
  void renewal(String strategy) throws Exception {
    String name = unique("renew");
    LockClient a = client(strategy);
    LockClient b = client(strategy);
    // Renewed every 2/3 s, so a renewal thread starved for a second on a busy machine still
    // keeps it; watched for more than twice its lease, so renewal (not the first lease) holds it.
    Lease lease = a.lock(name).withLeaseTime(Duration.ofSeconds(2)).acquire(Duration.ZERO);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4500);
    while (System.nanoTime() < until) {
      assertThat(b.lock(name).tryAcquire()).isEmpty();
      Thread.sleep(20); // A spinning rival would starve the renewal thread it is testing.
    }
    assertThat(lease.isValid()).isTrue();
    lease.release();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("many threads in four clients never overlap under one lock")
  void noOverlapUnderContention(String strategy) throws Exception {
    String name = unique("stress");
    List<LockClient> cs =
        List.of(client(strategy), client(strategy), client(strategy), client(strategy));
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      LockClient c = cs.get(t % 4);
      fs.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 25; i++) {
                  try (Lease l = c.lock(name).acquire(Duration.ofSeconds(30))) {
                    if (inside.incrementAndGet() != 1) {
                      overlaps.incrementAndGet();
                    }
                    tokens.add(l.fencingToken());
                    inside.decrementAndGet();
                    done.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : fs) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(overlaps.get()).isZero();
    assertThat(done.get()).isEqualTo(200);
    assertThat(tokens).doesNotHaveDuplicates();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("readers share, a writer excludes them, and a waiting writer keeps new readers out")
  void readWrite(String strategy) throws Exception {
    String name = unique("rw");
    LockClient a = client(strategy);
    LockClient b = client(strategy);
    LockClient c = client(strategy);
    DistributedReadWriteLock rwA = a.readWriteLock(name);
    DistributedReadWriteLock rwB = b.readWriteLock(name);
    DistributedReadWriteLock rwC = c.readWriteLock(name);
    Lease r1 = rwA.readLock().acquire(Duration.ofSeconds(1));
    Lease r2 = rwB.readLock().acquire(Duration.ofSeconds(1));
    // A writer that is waiting keeps a new reader out, so readers cannot starve it.
    ExecutorService pool = Executors.newSingleThreadExecutor();
    CountDownLatch writing = new CountDownLatch(1);
    Future<Lease> writer =
        pool.submit(
            () -> {
              Lease w = rwC.writeLock().acquire(Duration.ofSeconds(10));
              writing.countDown();
              return w;
            });
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(rwA.readLock().withOwner("late-reader").tryAcquire()).isEmpty());
    assertThat(writing.getCount()).isEqualTo(1);
    r1.release();
    r2.release();
    Lease w = writer.get(5, TimeUnit.SECONDS);
    assertThat(rwA.readLock().tryAcquire()).isEmpty();
    assertThat(w.fencingToken()).isPositive();
    w.release();
    assertThat(rwA.readLock().tryAcquire()).isPresent();
    pool.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("a writer that gives up withdraws its mark, so readers get in at once")
  void withdrawnWriterLetsReadersIn(String strategy) throws Exception {
    String name = unique("wd");
    LockClient a = client(strategy);
    LockClient b = client(strategy);
    Lease r = a.readWriteLock(name).readLock().acquire(Duration.ofSeconds(1));
    assertThat(b.readWriteLock(name).writeLock().tryAcquire(Duration.ofMillis(200))).isEmpty();
    assertThat(b.readWriteLock(name).readLock().tryAcquire()).isPresent();
    r.release();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("a waiter wakes on release through pub/sub, far sooner than its polling would")
  void wakeOnRelease(String strategy) throws Exception {
    String name = unique("wake");
    LockClient a = client(strategy);
    LockClient slowPoller =
        client(
            strategy,
            LockOptions.builder().backoff(Duration.ofSeconds(20), Duration.ofSeconds(20)).build());
    Lease held = a.lock(name).acquire(Duration.ZERO);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<Lease> waiter = pool.submit(() -> slowPoller.lock(name).acquire(Duration.ofSeconds(30)));
    Thread.sleep(300); // let the waiter subscribe and start its 20 s pause
    long released = System.nanoTime();
    held.release();
    Lease got = waiter.get(5, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
    got.release();
    pool.shutdown();
  }

  /** How many PUBLISH commands the server ran since the last reset, scripts' included. */
  static long publishes() {
    String stats = redis.cli("INFO", "commandstats");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("cmdstat_publish:calls=(\\d+)").matcher(stats);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  @org.junit.jupiter.api.Test
  @DisplayName(
      "script strategy: a release nobody waits for publishes nothing (exclusive, read and write),"
          + " a release a waiter listens for publishes once and wakes it")
  void publishOnlyToWaiters() throws Exception {
    String name = unique("quiet");
    LockClient a = client("script");
    redis.cli("CONFIG", "RESETSTAT");
    for (int i = 0; i < 3; i++) {
      a.lock(name).acquire(Duration.ZERO).release();
    }
    DistributedReadWriteLock rw = a.readWriteLock(name);
    rw.readLock().acquire(Duration.ZERO).release();
    rw.writeLock().acquire(Duration.ZERO).release();
    assertThat(publishes()).as("PUBLISH calls for releases nobody waited for").isZero();

    LockClient slowPoller =
        client(
            "script",
            LockOptions.builder().backoff(Duration.ofSeconds(20), Duration.ofSeconds(20)).build());
    Lease held = a.lock(name).acquire(Duration.ZERO);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Lease> waiter =
          pool.submit(() -> slowPoller.lock(name).acquire(Duration.ofSeconds(30)));
      // Subscribed once the server counts a subscriber on the lock's channel.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.cli("PUBSUB", "CHANNELS", "*quiet*").contains("released"));
      held.release();
      Lease got = waiter.get(5, TimeUnit.SECONDS);
      assertThat(publishes()).as("PUBLISH calls once a waiter listened").isEqualTo(1);
      got.release();
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("names with braces, percent signs and Lua are data: distinct locks, one slot each")
  void namesAreData(String strategy) throws Exception {
    LockClient a = client(strategy);
    LockClient b = client(strategy);
    String base = unique("n");
    String[] names = {
      base + "{a}",
      base + "%7Ba%7D",
      base + "}{",
      base + "') redis.call('FLUSHALL') --",
      base + "ü{}"
    };
    List<Lease> held = new ArrayList<>();
    for (String n : names) {
      held.add(a.lock(n).acquire(Duration.ZERO));
    }
    for (String n : names) {
      assertThat(b.lock(n).tryAcquire()).as(n).isEmpty();
    }
    assertThat(redis.cli("EXISTS", "locksmith:{" + base + "%7Ba%7D}:lock")).isEqualTo("1");
    assertThat(redis.cli("EXISTS", "locksmith:{" + base + "%257Ba%257D}:lock")).isEqualTo("1");
    held.forEach(Lease::release);
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "the key prefix is honoured; the prefix's token counter never expires, and no counter per"
          + " name is made")
  void prefixAndFence(String strategy) throws Exception {
    LockClient a = client(strategy, LockOptions.builder().keyPrefix("app1:").build());
    String name = unique("p");
    Lease l = a.lock(name).acquire(Duration.ZERO);
    assertThat(redis.cli("EXISTS", "app1:{" + name + "}:lock")).isEqualTo("1");
    assertThat(redis.cli("PTTL", "app1:{" + name + "}:lock")).isNotEqualTo("-1");
    assertThat(redis.cli("PTTL", "app1:{}:tokens")).isEqualTo("-1");
    assertThat(redis.cli("GET", "app1:{}:tokens")).isEqualTo(Long.toString(l.fencingToken()));
    assertThat(redis.cli("EXISTS", "app1:{" + name + "}:fence")).isEqualTo("0");
    l.release();
    assertThat(redis.cli("EXISTS", "app1:{" + name + "}:lock")).isEqualTo("0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("a key prefix with a brace is refused: it would move the hash slot")
  void bracePrefixRefused(String strategy) {
    assertThatThrownBy(() -> client(strategy, LockOptions.builder().keyPrefix("a{b}:").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix");
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("tryAcquire with no wait returns at once when the lock is busy")
  void tryAcquireDoesNotBlock(String strategy) throws Exception {
    String name = unique("nb");
    client(strategy).lock(name).acquire(Duration.ZERO);
    long t0 = System.nanoTime();
    Optional<Lease> none = client(strategy).lock(name).tryAcquire();
    assertThat(none).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(500));
  }
}
