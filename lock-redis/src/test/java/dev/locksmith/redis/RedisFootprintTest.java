package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.redis.fixture.RedisFixture;
import dev.locksmith.redis.fixture.RedisInspector;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.ClientCrash;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the store leaves behind on every Redis flavour (one node with scripts and with WATCH, a
 * cluster, Redlock), counted by the fixtures' inspectors with {@code SCAN}: released and expired
 * locks leave no key per name, only the shared token counters; and tokens keep rising after those
 * counters are evicted.
 *
 * <p>The number of names is 10,000 on one node with scripts and 2,000 on the slower WATCH, cluster
 * and Redlock flavours, or {@code -Dlocksmith.footprint.names} for all; each run prints what it
 * counted.
 */
class RedisFootprintTest {

  /** {@code -Dlocksmith.footprint.names}, for every flavour; unset: 10,000 and 2,000 (above). */
  static final Integer NAMES = Integer.getInteger("locksmith.footprint.names");

  /**
   * How many hash slots the names fall into ({@code -Dlocksmith.footprint.slots}, a power of two up
   * to 16,384; default 64): on a cluster the store may keep one counter per slot, so names spread
   * over few slots show a key left per name, which names spread over every slot would hide below
   * the bound of 16,384.
   */
  static final int SLOTS = Integer.getInteger("locksmith.footprint.slots", 64);

  /** {@code count} distinct names {@code order:N} whose hash slots are among {@link #SLOTS}. */
  static List<String> nameList(int count) {
    int step = SlotHash.SLOT_COUNT / SLOTS;
    List<String> names = new ArrayList<>(count);
    for (int i = 0; names.size() < count; i++) {
      String name = "order:" + i;
      if (SlotHash.getSlot(name.getBytes(StandardCharsets.UTF_8)) % step == 0) {
        names.add(name);
      }
    }
    return names;
  }

  static Stream<Arguments> flavours() {
    return Stream.of(
        Arguments.of("redis", (Supplier<StoreFixture>) RedisFixture::new, count(10_000)),
        Arguments.of(
            "redis-watch", (Supplier<StoreFixture>) RedisFixture::watchStrategy, count(2_000)),
        Arguments.of("redis-cluster", (Supplier<StoreFixture>) RedisCluster::fixture, count(2_000)),
        Arguments.of("redlock", (Supplier<StoreFixture>) RedlockFixture::new, count(2_000)));
  }

  private static int count(int unlessSet) {
    return NAMES != null ? NAMES : unlessSet;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("flavours")
  @DisplayName(
      "distinct names acquired and released (exclusive, read, write, nested, refused to a rival)"
          + " leave at most the shared counters, and so do a crashed holder's names once its lease"
          + " ended")
  void releasedNamesLeaveNothing(String flavour, Supplier<StoreFixture> fixture, int names)
      throws Exception {
    try (RunningStore store = fixture.get().start()) {
      StoreInspector inspector = store.inspector().orElseThrow();
      String prefix = "fp-" + flavour + ":";
      LockOptions options = LockOptions.builder().keyPrefix(prefix).build();
      List<LockClient> clients = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        for (int c = 0; c < 4; c++) {
          clients.add(store.open(options));
        }
        boolean readWrite = clients.get(0).capabilities().contains(Capability.READ_WRITE);
        boolean nested = clients.get(0).capabilities().contains(Capability.REENTRANCY);
        List<String> all = nameList(names);
        List<Future<?>> work = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
          LockClient client = clients.get(c);
          LockClient other = clients.get((c + 1) % 4);
          int first = c;
          work.add(
              pool.submit(
                  () -> {
                    for (int i = first; i < names; i += 4) {
                      lockAndRelease(client, other, all.get(i), i, readWrite, nested);
                    }
                    return null;
                  }));
        }
        for (Future<?> w : work) {
          w.get();
        }
        long left = inspector.entries(prefix);
        // On a cluster: one counter per hash slot the names fell into, at most.
        long allowed = Math.min(inspector.sharedEntries(), SLOTS);
        System.out.printf(
            "FOOTPRINT %s: %d distinct names in %d hash slots released -> %d keys under '%s'"
                + " (allowed: %d), such as %s%n",
            flavour,
            names,
            SLOTS,
            left,
            prefix,
            allowed,
            ((RedisInspector) inspector).sample(prefix));
        assertThat(left).as("keys left under " + prefix).isLessThanOrEqualTo(allowed);

        String crashPrefix = "fp-crash-" + flavour + ":";
        Duration lease = store.shortLease();
        LockClient holder =
            store.open(LockOptions.builder().keyPrefix(crashPrefix).leaseTime(lease).build());
        for (int i = 0; i < 20; i++) {
          if (readWrite && i % 4 == 1) {
            holder.readWriteLock("held:" + i).readLock().acquire(Duration.ZERO);
          } else if (readWrite && i % 4 == 2) {
            holder.readWriteLock("held:" + i).writeLock().acquire(Duration.ZERO);
          } else {
            holder.lock("held:" + i).acquire(Duration.ZERO);
          }
        }
        assertThat(inspector.entries(crashPrefix)).as("the holds").isGreaterThanOrEqualTo(20);
        ClientCrash.crash(holder);
        await()
            .atMost(lease.plus(store.timingSlack()).plusSeconds(1))
            .untilAsserted(
                () ->
                    assertThat(inspector.entries(crashPrefix))
                        .as("keys left under " + crashPrefix + " after the crashed holder's lease")
                        .isLessThanOrEqualTo(inspector.sharedEntries()));
      } finally {
        pool.shutdownNow();
        clients.forEach(LockClient::close);
      }
    }
  }

  /**
   * One name used and freed by {@code a}, with {@code b} as a rival, so that every path that writes
   * a hold, a reader or a waiting-writer mark must clean it up: every seventh nested, every third
   * refused to the rival (busy, isLocked) and then taken by it; every fourth also read twice with a
   * writer refused, then written with a reader refused.
   */
  static void lockAndRelease(
      LockClient a, LockClient b, String name, int i, boolean readWrite, boolean nested)
      throws Exception {
    if (nested && i % 7 == 0) {
      Lease outer = a.lock(name).withOwner("owner-" + i).tryAcquire().orElseThrow();
      b.lock(name).withOwner("owner-" + i).tryAcquire().orElseThrow().release();
      outer.release();
    } else if (i % 3 == 0) {
      Lease held = a.lock(name).tryAcquire().orElseThrow();
      assertThat(b.lock(name).tryAcquire()).isEmpty();
      assertThat(b.lock(name).isLocked()).isTrue();
      held.release();
      b.lock(name).acquire(Duration.ofSeconds(30)).release();
    } else {
      a.lock(name).tryAcquire().orElseThrow().release();
    }
    if (readWrite && i % 4 == 0) {
      Lease r1 = a.readWriteLock(name).readLock().tryAcquire().orElseThrow();
      Lease r2 = b.readWriteLock(name).readLock().tryAcquire().orElseThrow();
      assertThat(b.readWriteLock(name).writeLock().tryAcquire()).isEmpty();
      r1.release();
      r2.release();
      Lease w = b.readWriteLock(name).writeLock().acquire(Duration.ofSeconds(30));
      assertThat(a.readWriteLock(name).readLock().tryAcquire()).isEmpty();
      w.release();
      a.readWriteLock(name).readLock().acquire(Duration.ofSeconds(30)).release();
    }
    if (i % 10 == 0) {
      assertThat(a.lock(name).isLocked()).isFalse();
    }
  }

  static Stream<Arguments> fencedFlavours() {
    return flavours().filter(a -> !a.get()[0].equals("redlock"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fencedFlavours")
  @DisplayName(
      "after every idle key is evicted (counters too, as allkeys-lru would), tokens of the same"
          + " name, of a never-seen name and of a write lock exceed every token handed out before")
  void tokensRiseAfterEviction(String flavour, Supplier<StoreFixture> fixture, int names)
      throws Exception {
    try (RunningStore store = fixture.get().start()) {
      StoreInspector inspector = store.inspector().orElseThrow();
      String prefix = "ev-" + flavour + ":";
      try (LockClient client = store.open(LockOptions.builder().keyPrefix(prefix).build())) {
        long last = 0;
        for (int i = 0; i < 50; i++) {
          Lease l = client.lock("order:1").acquire(Duration.ZERO);
          last = Math.max(last, l.fencingToken());
          l.release();
          Lease w = client.readWriteLock("order:2").writeLock().acquire(Duration.ZERO);
          last = Math.max(last, w.fencingToken());
          w.release();
        }
        Lease held = client.lock("held").acquire(Duration.ZERO);
        inspector.evictIdle(prefix);
        assertThat(inspector.entries(prefix)).as("only the live hold is left").isEqualTo(1);
        long same = client.lock("order:1").acquire(Duration.ZERO).fencingToken();
        inspector.evictIdle(prefix);
        long fresh = client.lock("never-seen").acquire(Duration.ZERO).fencingToken();
        inspector.evictIdle(prefix);
        long write =
            client.readWriteLock("order:2").writeLock().acquire(Duration.ZERO).fencingToken();
        System.out.printf(
            "EVICTED %s: last token before %d; after eviction: same name %d, new name %d, write"
                + " %d%n",
            flavour, last, same, fresh, write);
        assertThat(same).isGreaterThan(last);
        assertThat(fresh).isGreaterThan(Math.max(last, held.fencingToken()));
        assertThat(write).isGreaterThan(last);
      }
    }
  }
}
