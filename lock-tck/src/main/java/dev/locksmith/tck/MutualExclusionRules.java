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
}
