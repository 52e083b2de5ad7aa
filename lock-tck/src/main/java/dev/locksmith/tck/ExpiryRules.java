package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Promise 3: a holder that dies frees the lock, and a lease ends at its expiry unless extended,
 * checked from both sides: the store holds at least what it promised and frees within the lease
 * plus the slack.
 */
public interface ExpiryRules extends KitTest {

  @Test
  default void rule_3_1_crashedHolderFreesLock() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration lease = kit.expiryLease(a);
    for (HoldKind kind : kit.kinds(a)) {
      kind.of(a, kit.name("x-" + kind)).withLeaseTime(lease).tryAcquire().orElseThrow();
    }
    kit.crash(a);
    long crashed = System.nanoTime();
    kit.forEveryKind(
        b,
        kind -> {
          String name = kit.name("x-" + kind);
          assertThat(kind.rival().of(b, name).tryAcquire())
              .as("the lock right after the crash")
              .isEmpty();
          Lease next = Kit.awaitAcquired(kind.rival().of(b, name), lease.plus(kit.slack()));
          next.release();
          assertThat(Kit.millisSince(crashed))
              .as("ms from the crash until a rival held the lock")
              .isLessThanOrEqualTo(lease.plus(kit.slack()).toMillis());
        });
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_3_2_expiryWithoutRenewalIsLoss() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    kit.forEveryKind(
        a,
        kind -> {
          AtomicInteger told = new AtomicInteger();
          Lease held =
              kind.of(a, kit.name("x-" + kind))
                  .withLeaseTime(lease)
                  .withAutoRenew(false)
                  .tryAcquire()
                  .orElseThrow()
                  .onLost((l, why) -> told.incrementAndGet());
          assertThat(held.isValid()).isTrue();
          await()
              .atMost(lease.plus(kit.slack()))
              .pollInterval(Duration.ofMillis(10))
              .until(() -> told.get() > 0);
          assertThat(held.isValid()).as("isValid after loss").isFalse();
          assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
          assertThat(told.get()).as("times onLost was told").isEqualTo(1);
        });
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_3_3_expiredLockIsTakenOver() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration lease = kit.expiryLease(a);
    kit.forEveryKind(
        a,
        kind -> {
          String name = kit.name("x-" + kind);
          long start = System.nanoTime();
          kind.of(a, name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
          assertThat(kind.rival().of(b, name).tryAcquire()).as("before expiry").isEmpty();
          Lease next = Kit.awaitAcquired(kind.rival().of(b, name), lease.plus(kit.slack()));
          assertThat(Kit.millisSince(start))
              .isLessThanOrEqualTo(lease.plus(kit.slack()).toMillis());
          next.release();
        });
  }

  @Test
  default void rule_3_4_expiresAtIsConservative() {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    Instant before = Instant.now();
    Lease held = a.lock(kit.name("x")).withLeaseTime(lease).tryAcquire().orElseThrow();
    Instant after = Instant.now();
    if (a.capabilities().contains(Capability.SESSION_BOUND)) {
      assertThat(held.expiresAt()).isEqualTo(Instant.MAX);
    } else {
      assertThat(held.expiresAt())
          .isBefore(after.plus(lease).plusMillis(1))
          .isAfter(before.plus(lease).minus(kit.slack()));
    }
    held.release();
  }

  @Test
  default void rule_3_5_leaseBelowMinimumRefused() {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration min = kit.timing(a).minimumLease();
    Duration tooShort = min.minusNanos(1);
    if (tooShort.isZero()) {
      return; // A 1 ns minimum: nothing shorter exists, and 10.6 refuses zero.
    }
    assertThatThrownBy(() -> a.lock(kit.name("x")).withLeaseTime(tooShort))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime");
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_3_6_extendPushesExpiry() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(a);
    Lease held = a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
    long start = System.nanoTime();
    held.extend(lease.multipliedBy(4));
    Thread.sleep(lease.toMillis() + lease.toMillis() / 2);
    assertThat(Kit.millisSince(start)).isLessThan(lease.multipliedBy(4).toMillis());
    assertThat(held.isValid()).as("extended lease past its first expiry").isTrue();
    assertThat(kit.client().lock(name).tryAcquire()).as("the lock past its first expiry").isEmpty();
    held.release();
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_3_7_heldAtLeastTheLeaseAndFreedWithinSlack() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration lease = kit.timingLease(a);
    kit.forEveryKind(
        b,
        kind -> {
          String name = kit.name("x-" + kind);
          long sent = System.nanoTime();
          kind.of(a, name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
          long held = System.nanoTime();
          Lease rival = Kit.awaitAcquired(kind.rival().of(b, name), lease.plus(kit.slack()));
          long taken = System.nanoTime();
          rival.release();
          // A rival's success came back after the store freed the hold, which began after `sent`:
          // a store that holds the whole lease can never fail the lower bound, whatever the load.
          assertThat(Duration.ofNanos(taken - sent))
              .as("how long the store held a %s lease (it must hold at least 90%% of it)", lease)
              .isGreaterThanOrEqualTo(lease.multipliedBy(9).dividedBy(10));
          assertThat(Duration.ofNanos(taken - held))
              .as("when a rival took the lock after the %s lease", lease)
              .isLessThanOrEqualTo(lease.plus(kit.slack()));
        });
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_3_8_renewedHoldTimedFromLastRenewal() throws Exception {
    Kit kit = kit();
    LockClient b = kit.client();
    kit.forEveryKind(
        b,
        kind -> {
          // Each kind has its own holder, so that crashing one does not end the others early.
          LockClient a = kit.client();
          Duration lease = kit.timingLease(a);
          String name = kit.name("x-" + kind);
          Lease held =
              kind.of(a, name).withLeaseTime(lease).withAutoRenew(true).tryAcquire().orElseThrow();
          long acquired = System.nanoTime();
          // Renewals run at a third of the lease: after a lease and a half, several have happened.
          Thread.sleep(lease.toMillis() + lease.toMillis() / 2);
          assertThat(held.isValid()).as("a renewed lease a lease and a half later").isTrue();
          assertThat(kind.rival().of(b, name).tryAcquire()).as("while renewed").isEmpty();
          Instant lastRenewalEnds = held.expiresAt();
          kit.crash(a);
          long crashed = System.nanoTime();
          Lease rival = Kit.awaitAcquired(kind.rival().of(b, name), lease.plus(kit.slack()));
          Instant takenAt = Instant.now();
          long taken = System.nanoTime();
          rival.release();
          assertThat(Duration.between(lastRenewalEnds.minus(lease), takenAt))
              .as(
                  "how long the store held after the last renewal (at least 90%% of the %s lease;"
                      + " a store whose extend does nothing frees at the first expiry)",
                  lease)
              .isGreaterThanOrEqualTo(lease.multipliedBy(9).dividedBy(10));
          assertThat(Duration.ofNanos(taken - crashed))
              .as("when a rival took the lock after the crash (a store whose extend adds holds on)")
              .isLessThanOrEqualTo(lease.plus(kit.slack()));
          assertThat(Duration.ofNanos(taken - acquired))
              .as("the whole hold outlasted the first lease")
              .isGreaterThan(lease);
        });
  }

  @Test
  @Requires(leaseExpiry = true)
  default void rule_3_9_isValidEndsByTheLeaseEnd() {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    Lease held =
        a.lock(kit.name("x")).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
    // The engine times the lease from before its store call, so it ends by now + lease at latest.
    long end = System.nanoTime() + lease.toNanos();
    boolean sawValid = false;
    while (System.nanoTime() - end < 0) {
      sawValid |= held.isValid();
      Thread.onSpinWait();
    }
    assertThat(held.isValid()).as("isValid() at the lease's end").isFalse();
    assertThat(sawValid).as("isValid() before the lease's end").isTrue();
  }
}
