package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.UnsupportedCapabilityException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Promise 5: fencing tokens strictly increase across holders. */
public interface FencingRules extends KitTest {

  @Test
  @Requires(Capability.FENCING)
  default void rule_5_1_tokensIncrease() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 10; i++) {
      Lease lease = (i % 2 == 0 ? a : b).lock(name).tryAcquire().orElseThrow();
      long token = lease.fencingToken();
      assertThat(token).as("token of holder %d", i).isGreaterThan(last);
      last = token;
      lease.release();
    }
  }

  @Test
  @Requires(value = Capability.FENCING, leaseExpiry = true)
  default void rule_5_2_takeoverTokenIsGreater() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(a);
    Lease old = a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
    Lease next = Kit.awaitAcquired(b.lock(name), lease.plus(kit.slack()));
    assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
    next.release();
  }

  @Test
  @Requires({Capability.FENCING, Capability.REENTRANCY})
  default void rule_5_3_nestedHoldSharesToken() {
    Kit kit = kit();
    DistributedLock lock = kit.client().lock(kit.name("x")).withOwner("tck-owner");
    Lease first = lock.tryAcquire().orElseThrow();
    Lease second = lock.tryAcquire().orElseThrow();
    assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
    second.release();
    first.release();
  }

  @Test
  @Requires(value = Capability.DURABLE_FENCING, hooks = KitHook.FAULTS)
  default void rule_5_4_tokensSurviveRestart() {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    String name = kit.name("x");
    Lease before = a.lock(name).tryAcquire().orElseThrow();
    long token = before.fencingToken();
    before.release();
    faults.kill();
    faults.restart();
    LockClient b = kit.client();
    AtomicReference<Lease> after = new AtomicReference<>();
    await()
        .atMost(kit.recoveryTime())
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              b.lock(name).tryAcquire().ifPresent(after::set);
              return after.get() != null;
            });
    assertThat(after.get().fencingToken()).as("token after restart").isGreaterThan(token);
    after.get().release();
  }

  @Test
  default void rule_5_5_fencingDeclaredTruthfully() {
    Kit kit = kit();
    LockClient a = kit.client();
    Lease lease = a.lock(kit.name("x")).tryAcquire().orElseThrow();
    if (a.capabilities().contains(Capability.FENCING)) {
      assertThat(lease.fencingToken()).isNotEqualTo(LockHistory.NO_TOKEN);
    } else {
      assertThatThrownBy(lease::fencingToken)
          .isInstanceOfSatisfying(
              UnsupportedCapabilityException.class,
              e -> assertThat(e.capability()).isEqualTo(Capability.FENCING));
    }
    lease.release();
  }

  @Test
  default void rule_5_6_durableImpliesFencing() {
    LockClient a = kit().client();
    if (a.capabilities().contains(Capability.DURABLE_FENCING)) {
      assertThat(a.capabilities()).contains(Capability.FENCING);
    }
  }
}
