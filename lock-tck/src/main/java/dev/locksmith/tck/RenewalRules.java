package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.tck.FaultInjectingStore.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Promise 4: the watchdog renews; a failed renewal is reported, never hidden. */
public interface RenewalRules extends KitTest {

  @Test
  default void rule_4_1_renewalKeepsLock() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    // A lease whose renewals (every third of it) have a slack to spare: with the short lease of
    // the expiry rules, a renewal thread starved for 400 ms on a loaded machine (seen on Redis
    // Cluster under a CPU hog) lets the hold lapse, which is a lost lease, not a kept one.
    Duration lease = kit.timingLease(a);
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("x-" + kind);
          AtomicInteger lost = new AtomicInteger();
          Lease held =
              kind.of(a, name)
                  .withLeaseTime(lease)
                  .withAutoRenew(true)
                  .tryAcquire()
                  .orElseThrow()
                  .onLost((l, why) -> lost.incrementAndGet());
          long end = System.nanoTime() + lease.multipliedBy(3).plus(lease.dividedBy(2)).toNanos();
          while (System.nanoTime() - end < 0) {
            assertThat(kind.rival().of(b, name).tryAcquire()).as("a rival while renewed").isEmpty();
            assertThat(held.isValid()).as("renewed lease").isTrue();
            Thread.sleep(Math.max(10, lease.toMillis() / 6));
          }
          assertThat(lost.get()).as("onLost calls while renewed").isZero();
          held.release();
        });
  }

  @Test
  @Requires(hooks = KitHook.FAULTS)
  default void rule_4_2_failedRenewalFiresOnLost() {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    Map<HoldKind, AtomicInteger> lost = new EnumMap<>(HoldKind.class);
    Map<HoldKind, Lease> held = new EnumMap<>(HoldKind.class);
    for (HoldKind kind : kit.kinds(a)) {
      AtomicInteger told = new AtomicInteger();
      lost.put(kind, told);
      held.put(
          kind,
          kind.of(a, kit.name("x-" + kind))
              .withLeaseTime(lease)
              .withAutoRenew(true)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> told.incrementAndGet()));
    }
    faults.pause();
    try {
      await()
          .atMost(lease.plus(kit.storeTimeout()).plus(kit.slack()))
          .pollInterval(Duration.ofMillis(10))
          .untilAsserted(
              () ->
                  assertThat(lost)
                      .as("onLost calls per kind")
                      .allSatisfy((k, n) -> assertThat(n.get()).as("%s", k).isPositive()));
      assertThat(held).allSatisfy((k, l) -> assertThat(l.isValid()).as("%s lease", k).isFalse());
    } finally {
      faults.resume();
    }
    held.forEach(
        (k, l) ->
            assertThatThrownBy(l::release)
                .as("%s release", k)
                .isInstanceOf(LeaseLostException.class));
    assertThat(lost)
        .allSatisfy((k, n) -> assertThat(n.get()).as("%s onLost calls", k).isEqualTo(1));
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_4_3_lateListenerToldAtOnce() {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    Lease held =
        a.lock(kit.name("x")).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
    await()
        .atMost(lease.plus(kit.slack()))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> !held.isValid());
    // The expiry timer may lag isValid(); wait until the loss is recorded, then register.
    AtomicInteger first = new AtomicInteger();
    held.onLost((l, why) -> first.incrementAndGet());
    await().atMost(kit.slack()).until(() -> first.get() == 1);
    AtomicInteger late = new AtomicInteger();
    held.onLost((l, why) -> late.incrementAndGet());
    assertThat(late.get()).as("calls to a listener registered after the loss").isEqualTo(1);
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_4_4_releaseStopsTimers() {
    Kit kit = kit();
    LockClient a = kit.client();
    EngineClient engine = kit.engine(a);
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      leases.add(
          a.lock(kit.name("x" + i))
              .withLeaseTime(Duration.ofSeconds(30))
              .tryAcquire()
              .orElseThrow());
    }
    assertThat(engine.activeLeases()).isEqualTo(5);
    leases.forEach(Lease::release);
    assertThat(engine.activeLeases()).as("leases tracked after release").isZero();
    await().atMost(kit.slack()).until(() -> engine.scheduledTimers() == 0);
  }

  @Test
  @Requires(hooks = KitHook.OUTSIDE_ACTOR)
  default void rule_4_5_outsideDeletionIsReported() throws Exception {
    Kit kit = kit();
    OutsideActor actor = kit.outsideActor();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a).multipliedBy(3);
    boolean pushes = a.capabilities().contains(Capability.SESSION_BOUND);
    Duration bound = pushes ? kit.slack() : lease.dividedBy(3).plus(kit.slack());
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("x-" + kind);
          AtomicInteger lost = new AtomicInteger();
          Lease held =
              kind.of(a, name)
                  .withLeaseTime(lease)
                  .withAutoRenew(true)
                  .tryAcquire()
                  .orElseThrow()
                  .onLost((l, why) -> lost.incrementAndGet());
          actor.deleteHolds(name, kind.mode());
          long deleted = System.nanoTime();
          await().atMost(bound).pollInterval(Duration.ofMillis(10)).until(() -> lost.get() > 0);
          assertThat(held.isValid()).as("the lease once its hold was deleted").isFalse();
          assertThat(Kit.millisSince(deleted)).isLessThanOrEqualTo(bound.toMillis());
          assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
          assertThat(lost.get()).as("times onLost was told").isEqualTo(1);
        });
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_4_6_lateRenewalDoesNotRevive() throws Exception {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    LockClient holder = kit.clientOf(store, LockOptions.defaults());
    LockClient rival = kit.client();
    Duration lease = kit.expiryLease(holder).multipliedBy(2);
    // A renewal's request takes a quarter lease to reach the store: the release, sent while it is
    // on its way, gets there first, as on a slow or congested network path.
    store.delay(Operation.EXTEND, lease.dividedBy(4));
    for (int round = 0; round < 3; round++) {
      String name = kit.name("r" + round);
      int renewals = store.calls(Operation.EXTEND);
      Lease held =
          holder.lock(name).withLeaseTime(lease).withAutoRenew(true).tryAcquire().orElseThrow();
      await()
          .atMost(lease.plus(kit.slack()))
          .pollInterval(Duration.ofMillis(2))
          .until(() -> store.calls(Operation.EXTEND) > renewals);
      held.release();
      int sent = store.calls(Operation.EXTEND);
      await()
          .atMost(lease.plus(kit.slack()))
          .until(() -> store.completed(Operation.EXTEND) >= sent);
      assertThat(rival.lock(name).tryAcquire())
          .as("'%s' once its renewal reached the store after the release (round %d)", name, round)
          .hasValueSatisfying(Lease::release);
      assertThat(rival.lock(name).isLocked()).as("'%s' after the rival released", name).isFalse();
    }
  }
}
