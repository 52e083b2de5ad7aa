package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.internal.EngineClient;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Promise 10: failures are reported, never hidden, and the client recovers by itself. */
public interface StoreFailureRules extends KitTest {

  private static Duration failBound(Kit kit) {
    return kit.storeTimeout().plus(kit.slack());
  }

  @Test
  @Requires(hooks = KitHook.FAULTS)
  default void rule_11_1_pausedStore() {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    Map<HoldKind, DistributedLock> locks = new EnumMap<>(HoldKind.class);
    for (HoldKind kind : kit.kinds(a)) {
      DistributedLock lock = kind.of(a, kit.name("x-" + kind)).withLeaseTime(kit.expiryLease(a));
      lock.tryAcquire().orElseThrow().release(); // connected and working
      locks.put(kind, lock);
    }
    faults.pause();
    try {
      locks.forEach(
          (kind, lock) -> {
            long start = System.nanoTime();
            assertThatThrownBy(lock::tryAcquire)
                .as("%s tryAcquire on a paused store", kind)
                .isInstanceOf(LockStoreException.class);
            assertThat(Kit.millisSince(start)).isLessThanOrEqualTo(failBound(kit).toMillis());
            long again = System.nanoTime();
            assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
                .as("%s acquire on a paused store", kind)
                .isInstanceOf(LockStoreException.class);
            assertThat(Kit.millisSince(again)).isLessThanOrEqualTo(failBound(kit).toMillis());
          });
    } finally {
      faults.resume();
    }
    // An attempt the paused store queued may leave a hold until its lease ends.
    Duration recovery = kit.recoveryTime().plus(kit.expiryLease(a)).plus(kit.slack());
    locks.forEach((kind, lock) -> awaitRecovered(lock, recovery).release());
  }

  @Test
  @Requires(hooks = KitHook.FAULTS)
  default void rule_11_2_killedStore() {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    DistributedLock lock = a.lock(kit.name("x"));
    lock.tryAcquire().orElseThrow().release();
    faults.kill();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
          .isInstanceOf(LockStoreException.class);
      assertThat(Kit.millisSince(start)).isLessThanOrEqualTo(failBound(kit).toMillis());
    } finally {
      faults.restart();
    }
    awaitRecovered(lock, kit.recoveryTime()).release();
  }

  @Test
  @Requires(hooks = KitHook.FAULTS)
  default void rule_11_3_outageOutlastingLeaseIsReported() {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    Map<HoldKind, AtomicReference<LeaseLostException>> reasons = new EnumMap<>(HoldKind.class);
    Map<HoldKind, Lease> held = new EnumMap<>(HoldKind.class);
    for (HoldKind kind : kit.kinds(a)) {
      AtomicReference<LeaseLostException> reason = new AtomicReference<>();
      reasons.put(kind, reason);
      held.put(
          kind,
          kind.of(a, kit.name("x-" + kind))
              .withLeaseTime(lease)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> reason.set(why)));
    }
    faults.kill();
    try {
      await()
          .atMost(lease.plus(kit.storeTimeout()).plus(kit.slack()))
          .pollInterval(Duration.ofMillis(10))
          .untilAsserted(
              () ->
                  assertThat(reasons)
                      .as("holders told of the loss, per kind")
                      .allSatisfy((k, r) -> assertThat(r.get()).as("%s", k).isNotNull()));
      assertThat(held).allSatisfy((k, l) -> assertThat(l.isValid()).as("%s lease", k).isFalse());
    } finally {
      faults.restart();
    }
    held.forEach(
        (k, l) ->
            assertThatThrownBy(l::release)
                .as("%s release", k)
                .isInstanceOf(LeaseLostException.class));
  }

  @Test
  @Requires(hooks = KitHook.FAULTS)
  default void rule_11_4_failedAcquireLeavesNothing() {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(a);
    DistributedLock lock = a.lock(name).withLeaseTime(lease);
    faults.pause();
    try {
      assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockStoreException.class);
    } finally {
      faults.resume();
    }
    assertThat(a instanceof EngineClient ? ((EngineClient) a).activeLeases() : 0)
        .as("leases the failed acquire left")
        .isZero();
    awaitRecovered(b.lock(name), kit.recoveryTime().plus(lease).plus(kit.slack())).release();
  }

  private static Lease awaitRecovered(DistributedLock lock, Duration atMost) {
    AtomicReference<Lease> got = new AtomicReference<>();
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .ignoreException(LockStoreException.class)
        .until(
            () -> {
              lock.tryAcquire().ifPresent(got::set);
              return got.get() != null;
            });
    return got.get();
  }

  @Test
  @Requires(hooks = KitHook.FAULTS)
  default void rule_11_5_failedReleaseFreesOnceStoreIsBack() throws Exception {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    // The default lease (30 s) is far beyond the bound below: the lock must free because the
    // release is done once the store answers again, not because the lease ran out.
    Lease held = a.lock(name).tryAcquire().orElseThrow();
    faults.pause();
    try {
      assertThatThrownBy(held::release)
          .as("a release while the store is down")
          .isInstanceOf(LockStoreException.class);
    } finally {
      faults.resume();
    }
    long back = System.nanoTime();
    Duration bound = kit.recoveryTime().plus(kit.slack());
    Lease next = Kit.awaitAcquired(b.lock(name), bound);
    assertThat(Kit.millisSince(back))
        .as("ms from the store's return until the lock whose release failed was free")
        .isLessThanOrEqualTo(bound.toMillis());
    next.release();
    Kit.awaitAcquired(a.lock(name), bound).release();
  }
}
