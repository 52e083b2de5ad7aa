package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Promise 2: only the holder can release or extend, also after expiry. */
public interface OwnershipRules extends KitTest {

  @Test
  @Requires(leaseExpiry = true)
  default void rule_2_1_releaseAfterTakeoverKeepsRival() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("x-" + kind);
          Duration lease = kit.expiryLease(a);
          Lease old =
              kind.of(a, name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
          Lease taken = Kit.awaitAcquired(kind.rival().of(b, name), lease.plus(kit.slack()));
          assertThatThrownBy(old::release)
              .as("release of an expired lease")
              .isInstanceOf(LeaseLostException.class);
          assertThat(taken.isValid()).as("the rival's lease after the old release").isTrue();
          assertThat(kind.of(c, name).tryAcquire())
              .as("the lock after the old holder's late release")
              .isEmpty();
          taken.release(); // must not throw: the rival's hold is intact
        });
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_2_2_extendAfterTakeoverRefused() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("x-" + kind);
          Duration lease = kit.expiryLease(a);
          Lease old =
              kind.of(a, name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
          Lease taken = Kit.awaitAcquired(kind.rival().of(b, name), lease.plus(kit.slack()));
          assertThatThrownBy(() -> old.extend(lease))
              .as("extend of an expired lease")
              .isInstanceOf(LeaseLostException.class);
          assertThat(kind.of(c, name).tryAcquire()).as("the lock").isEmpty();
          taken.release();
        });
  }

  @Test
  default void rule_2_3_doubleReleaseIsNoOp() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    lease.release();
    lease.release();
    lease.close();
    assertThat(lease.isValid()).isFalse();
    Lease again = kit.client().lock(name).tryAcquire().orElseThrow();
    lease.release();
    assertThat(kit.client().lock(name).tryAcquire()).as("lock held by the next owner").isEmpty();
    again.release();
  }

  @Test
  default void rule_2_4_releaseFromAnotherThread() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    Kit.within(
        kit.pool(1).submit(lease::release), Duration.ofSeconds(10), "release on another thread");
    assertThat(kit.client().lock(name).tryAcquire()).as("the lock after release").isPresent();
  }

  @Test
  default void rule_2_5_closeReleases() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    a.close();
    assertThat(lease.isValid()).as("lease after its client closed").isFalse();
    assertThat(kit.client().lock(name).tryAcquire())
        .as("the lock right after its holder's client closed")
        .isPresent();
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_2_6_expiredWithoutRivalIsLost() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient c = kit.client();
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("x-" + kind);
          Duration lease = kit.expiryLease(a);
          Lease old =
              kind.of(a, name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
          Thread.sleep(lease.plus(kit.slack()).toMillis());
          assertThatThrownBy(old::release)
              .as("release of a lease that expired with no rival")
              .isInstanceOf(LeaseLostException.class);
          Optional<Lease> next = kind.rival().of(c, name).tryAcquire();
          assertThat(next).as("the lock after the expired holder's release").isPresent();
          next.get().release();
        });
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_2_7_grantedWhileClosingIsGivenBack() throws Exception {
    Kit kit = kit();
    LockClient rival = kit.client();
    for (int round = 0; round < 3; round++) {
      // Each grant's answer takes a quarter of the slack to come back, so that close() meets
      // acquires the store has already granted and the client has not heard of yet.
      FaultInjectingStore store = kit.faultyStore();
      store.delayReply(FaultInjectingStore.Operation.TRY_ACQUIRE, kit.slack().dividedBy(4));
      LockClient closing = kit.clientOf(store, LockOptions.defaults());
      List<String> asked = new CopyOnWriteArrayList<>();
      int threads = 4;
      CountDownLatch asking = new CountDownLatch(threads);
      ExecutorService pool = kit.pool(threads);
      List<Future<?>> acquirers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String base = kit.name("c" + round + "-" + t + "-");
        acquirers.add(
            pool.submit(
                () -> {
                  // Fresh names: every call in flight when the client closes is a grant.
                  for (int i = 0; i < 100; i++) {
                    String name = base + i;
                    asked.add(name);
                    if (i == 1) {
                      asking.countDown();
                    }
                    try {
                      closing.lock(name).tryAcquire();
                    } catch (IllegalStateException | LockStoreException closed) {
                      return null;
                    }
                  }
                  return null;
                }));
      }
      asking.await();
      closing.close();
      for (Future<?> f : acquirers) {
        Kit.within(f, Duration.ofSeconds(60), "an acquirer racing close()");
      }
      for (String name : asked) {
        assertThat(rival.lock(name).tryAcquire())
            .as(
                "'%s', asked for by a client that closed meanwhile (round %d): taken at once by"
                    + " another client",
                name, round)
            .hasValueSatisfying(Lease::release);
      }
    }
  }
}
