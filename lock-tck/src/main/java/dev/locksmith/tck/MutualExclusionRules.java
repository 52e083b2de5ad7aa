package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Promise 1: while a lease is valid, no other owner holds a valid lease on that name. */
public interface MutualExclusionRules extends KitTest {

  @Test
  default void rule_1_1_otherClientFindsItTaken() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow(() -> new AssertionError("free lock"));
    assertThat(b.lock(name).tryAcquire()).as("second client's tryAcquire").isEmpty();
    assertThat(b.lock(name).isLocked()).as("isLocked seen from the other client").isTrue();
    lease.release();
    Optional<Lease> next = b.lock(name).tryAcquire();
    assertThat(next).as("tryAcquire after the holder released").isPresent();
    next.get().release();
    assertThat(a.lock(name).isLocked()).as("isLocked after every release").isFalse();
  }

  @Test
  default void rule_1_2_oneClientTwoOwners() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    Lease first = a.lock(name).tryAcquire().orElseThrow();
    assertThat(a.lock(name).tryAcquire()).as("second acquire from the same client").isEmpty();
    first.release();
  }

  @Test
  default void rule_1_3_contentionLosesNoUpdate() throws Exception {
    Kit kit = kit();
    List<LockClient> cs = List.of(kit.client(), kit.client(), kit.client());
    String name = kit.name("counter");
    int threadCount = 8;
    int rounds = kit.contentionRounds();
    LockHistory history = new LockHistory();
    int[] counter = {0}; // deliberately plain: only the lock protects it
    ExecutorService pool = kit.pool(threadCount);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threadCount; t++) {
      LockClient c = cs.get(t % cs.size());
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                  Lease lease = c.lock(name).acquire(Duration.ofSeconds(60));
                  LockHistory.Hold hold = history.acquired(name, Kit.tokenOf(c, lease));
                  int seen = counter[0];
                  Thread.sleep(1);
                  counter[0] = seen + 1;
                  hold.released();
                  lease.release();
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      Kit.within(f, Duration.ofSeconds(120), "a contending thread");
    }
    HistoryChecker.assertConsistent(history);
    assertThat(counter[0]).as("increments made under the lock").isEqualTo(threadCount * rounds);
  }

  @Test
  default void rule_1_4_namesAreIndependent() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Lease one = a.lock(kit.name("one")).tryAcquire().orElseThrow();
    Optional<Lease> two = b.lock(kit.name("two")).tryAcquire();
    assertThat(two).as("a lock of another name").isPresent();
    two.get().release();
    one.release();
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_1_5_exclusiveAndReadWriteAreIndependent() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("ns");
    Lease x = a.lock(name).tryAcquire().orElseThrow();
    Optional<Lease> w = b.readWriteLock(name).writeLock().tryAcquire();
    assertThat(w).as("write lock of a name whose exclusive lock is held").isPresent();
    assertThat(kit.client().lock(name).tryAcquire()).as("exclusive lock still held").isEmpty();
    w.get().release();
    x.release();
  }

  @Test
  default void rule_1_6_keyPrefixesSeparateClients() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client(LockOptions.builder().keyPrefix("kit-a.").build());
    LockClient alsoA = kit.client(LockOptions.builder().keyPrefix("kit-a.").build());
    LockClient b = kit.client(LockOptions.builder().keyPrefix("kit-b.").build());
    LockClient none = kit.client();
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("p-" + kind);
          Lease held = kind.of(a, name).tryAcquire().orElseThrow();
          assertThat(kind.of(b, name).tryAcquire())
              .as("%s '%s' under another key prefix while prefix 'kit-a.' holds it", kind, name)
              .hasValueSatisfying(Lease::release);
          assertThat(kind.of(none, name).tryAcquire())
              .as("%s '%s' with no key prefix while prefix 'kit-a.' holds it", kind, name)
              .hasValueSatisfying(Lease::release);
          assertThat(kind.rival().of(alsoA, name).tryAcquire())
              .as("%s '%s' on another client with the same key prefix", kind.rival(), name)
              .isEmpty();
          held.release();
          assertThat(kind.rival().of(alsoA, name).tryAcquire())
              .as("%s '%s' with the same key prefix once released", kind.rival(), name)
              .hasValueSatisfying(Lease::release);
        });
  }

  @Test
  default void rule_1_7_equalHashNamesAreIndependent() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    // Strings of one length with "Aa" where the other has "BB" have the same String.hashCode, so
    // they share every bucket a hash picks: a client-side lock striped by hash (Spring
    // Integration's 256-slot registry, spring-integration#11157) or keys bucketed to bound their
    // number.
    String held = kit.name("AaAa");
    List<String> sameHash = List.of(kit.name("BBBB"), kit.name("AaBB"), kit.name("BBAa"));
    for (String other : sameHash) {
      assertThat(other.hashCode()).as("hash of %s", other).isEqualTo(held.hashCode());
    }
    Lease lease = a.lock(held).tryAcquire().orElseThrow();
    ExecutorService pool = kit.pool(4);
    CountDownLatch waiting = new CountDownLatch(4);
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      LockClient c = i % 2 == 0 ? a : b;
      waiters.add(
          pool.submit(
              () -> {
                waiting.countDown();
                c.lock(held).tryAcquire(Duration.ofSeconds(60)).ifPresent(Lease::release);
                return null;
              }));
    }
    waiting.await();
    try {
      for (LockClient c : List.of(a, b)) {
        for (String other : sameHash) {
          long start = System.nanoTime();
          Optional<Lease> got = c.lock(other).tryAcquire();
          assertThat(got)
              .as(
                  "%s on %s while %s (the same hash code) is held and waited for",
                  other, c == a ? "the holder's client" : "another client", held)
              .isPresent();
          assertThat(Kit.millisSince(start))
              .as("tryAcquire of %s", other)
              .isLessThan(kit.slack().toMillis() / 2);
          got.get().release();
        }
      }
    } finally {
      lease.release();
    }
    for (Future<?> w : waiters) {
      Kit.within(w, Duration.ofSeconds(120), "a waiter on " + held);
    }
  }

  @Test
  default void rule_1_8_prefixAndNameNeverRunTogether() {
    Kit kit = kit();
    String u = kit.keyPrefix("pn");
    // Each row is (prefix, name) and (prefix, name) that concatenate to the same text.
    List<List<String>> pairs =
        List.of(
            List.of(u + "a", "bc", u + "ab", "c"),
            List.of("", u + "x:foo", u + "x:", "foo"),
            List.of(u + "p/", "x/lock/y", u + "p/lock/x/", "y"),
            List.of(u + "p:", "x:lock:y", u + "p:lock:x:", "y"),
            List.of(u + "p:", "x:fence:y", u + "p:fence:x:", "y"),
            List.of(u + "p", "/x", u + "p/", "x"),
            List.of(u + "p-", "lock-1", u + "p-lock-", "1"));
    int refused = 0;
    for (List<String> pair : pairs) {
      Optional<LockClient> first = openOrRefused(kit, pair.get(0));
      Optional<LockClient> second = openOrRefused(kit, pair.get(2));
      if (first.isEmpty() || second.isEmpty()) {
        refused++;
        continue;
      }
      String one = "('" + pair.get(0) + "', '" + pair.get(1) + "')";
      String two = "('" + pair.get(2) + "', '" + pair.get(3) + "')";
      Lease held = first.get().lock(pair.get(1)).tryAcquire().orElseThrow();
      try {
        assertThat(second.get().lock(pair.get(3)).tryAcquire())
            .as("%s while %s is held: a different prefix and name", two, one)
            .hasValueSatisfying(Lease::release);
      } finally {
        held.release();
      }
    }
    assertThat(refused).as("pairs whose prefixes the store refused").isLessThan(pairs.size());
  }

  /** A client with {@code keyPrefix} (none if empty), or empty if the store refuses the prefix. */
  private static Optional<LockClient> openOrRefused(Kit kit, String keyPrefix) {
    try {
      return Optional.of(keyPrefix.isEmpty() ? kit.client() : kit.client(Kit.prefixed(keyPrefix)));
    } catch (IllegalArgumentException refused) {
      assertThat(refused.getMessage()).as("the refusal of key prefix '%s'", keyPrefix).isNotBlank();
      return Optional.empty();
    }
  }

  @Test
  default void rule_1_9_racesForFreshNamesHaveOneWinner() throws Exception {
    Kit kit = kit();
    String prefix = kit.keyPrefix("race");
    List<LockClient> cs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      cs.add(kit.client(Kit.prefixed(prefix)));
    }
    Optional<StoreInspector> inspector = kit.inspectorIfAny();
    int threads = 8;
    int rounds = 24;
    ExecutorService pool = kit.pool(threads);
    for (int r = 0; r < rounds; r++) {
      if (r % 2 == 1 && inspector.isPresent()) {
        // Shared bookkeeping (a token counter) dropped as an evicting cache would: the racers
        // create it again, together.
        inspector.get().evictIdle(prefix);
      }
      String name = "fresh-" + r;
      java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(threads);
      List<Future<Optional<Lease>>> attempts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        LockClient c = cs.get(t % cs.size());
        attempts.add(
            pool.submit(
                () -> {
                  together.await();
                  return c.lock(name).tryAcquire();
                }));
      }
      List<Lease> winners = new ArrayList<>();
      for (Future<Optional<Lease>> f : attempts) {
        try {
          Kit.within(f, Duration.ofSeconds(60), "an attempt on " + name).ifPresent(winners::add);
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError(
              "an attempt on fresh name '" + name + "' failed: " + e.getCause(), e.getCause());
        }
      }
      assertThat(winners).as("winners of the race for '%s'", name).hasSizeLessThanOrEqualTo(1);
      if (winners.isEmpty()) {
        // A quorum store (Redlock) may split the votes so that nobody wins: the race must still
        // leave the name free, every partial hold undone.
        Kit.awaitAcquired(cs.get(0).lock(name), kit.slack()).release();
      } else {
        winners.get(0).release();
      }
    }
  }
}
