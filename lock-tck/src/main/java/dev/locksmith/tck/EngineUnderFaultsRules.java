package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.tck.FaultInjectingStore.Fault;
import dev.locksmith.tck.FaultInjectingStore.Operation;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The engine's own promises when its store misbehaves, checked through a {@link
 * FaultInjectingStore} around the store under test: the store is real, only its answers are lost,
 * delayed or bent.
 */
public interface EngineUnderFaultsRules extends KitTest {

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_14_1_lostAcquireReplyLeavesNoHold() {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    LockClient faulty = kit.clientOf(store, LockOptions.defaults());
    String name = kit.name("x");
    store.inject(Operation.TRY_ACQUIRE, Fault.LOSE_REPLY);
    assertThatThrownBy(() -> faulty.lock(name).tryAcquire())
        .as("an acquire whose reply was lost")
        .isInstanceOf(LockStoreException.class);
    store.heal();
    assertThat(kit.engine(faulty).activeLeases()).as("leases the failed acquire left").isZero();
    long failed = System.nanoTime();
    Lease next = Kit.awaitAcquired(kit.client().lock(name), kit.storeTimeout().plus(kit.slack()));
    assertThat(Kit.millisSince(failed))
        .as("ms until the hold the lost reply left behind was undone")
        .isLessThanOrEqualTo(kit.storeTimeout().plus(kit.slack()).toMillis());
    next.release();
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_14_2_tryAcquireIsOneStoreCall() {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    LockClient faulty = kit.clientOf(store, LockOptions.defaults());
    String name = kit.name("x");
    int before = store.calls(Operation.TRY_ACQUIRE);
    Lease lease = faulty.lock(name).tryAcquire().orElseThrow();
    assertThat(store.calls(Operation.TRY_ACQUIRE) - before)
        .as("store calls of tryAcquire() on a free lock")
        .isEqualTo(1);
    before = store.calls(Operation.TRY_ACQUIRE);
    assertThat(faulty.lock(name).tryAcquire()).isEmpty();
    assertThat(store.calls(Operation.TRY_ACQUIRE) - before)
        .as("store calls of tryAcquire() on a held lock")
        .isEqualTo(1);
    assertThat(store.calls(Operation.READ) + store.calls(Operation.EXTEND))
        .as("reads and extends made by the tryAcquire() calls")
        .isZero();
    lease.release();
  }

  @Test
  default void rule_14_3_lockAllSharesOneDeadline() {
    Kit kit = kit();
    LockClient holder = kit.client();
    LockClient a = kit.client();
    String[] names = {kit.name("a"), kit.name("b"), kit.name("c"), kit.name("d")};
    for (int i = 1; i < names.length; i++) {
      holder.lock(names[i]).tryAcquire().orElseThrow();
    }
    Duration wait = kit.slack().multipliedBy(2);
    long start = System.nanoTime();
    assertThatThrownBy(() -> a.lockAll(names).acquire(wait))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(Duration.ofMillis(Kit.millisSince(start)))
        .as("lockAll of 4 locks (3 held) with a wait of %s", wait)
        .isLessThanOrEqualTo(wait.plus(kit.slack()));
    assertThat(kit.client().lock(names[0]).tryAcquire())
        .as("the first lock after the failed lockAll")
        .isPresent();
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_14_4_waitNeverOverrunsItsBackoff() {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    store.withoutPushOrQueue();
    LockOptions longestBackoff =
        LockOptions.builder().backoff(Duration.ofMinutes(1), Duration.ofMinutes(1)).build();
    LockClient faulty = kit.clientOf(store, longestBackoff);
    String name = kit.name("x");
    Lease held = kit.client().lock(name).tryAcquire().orElseThrow();
    Duration wait = Duration.ofMillis(500);
    long start = System.nanoTime();
    assertThatThrownBy(() -> faulty.lock(name).acquire(wait))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(Duration.ofMillis(Kit.millisSince(start)))
        .as("a %s wait with a one-minute backoff", wait)
        .isLessThanOrEqualTo(wait.plus(kit.slack()));
    held.release();
  }

  @Test
  default void rule_14_5_threadViewIsPerThread() throws Exception {
    Kit kit = kit();
    ThreadOwnedLock view = kit.client().lock(kit.name("x")).asLock();
    view.lock();
    try {
      Future<String> other =
          kit.pool(1)
              .submit(
                  () ->
                      view.isHeldByCurrentThread()
                          + " "
                          + view.getHoldCount()
                          + " "
                          + view.currentLease().isPresent());
      assertThat(Kit.within(other, Duration.ofSeconds(10), "another thread's view"))
          .as("isHeldByCurrentThread, getHoldCount and currentLease on another thread")
          .isEqualTo("false 0 false");
      assertThat(view.isHeldByCurrentThread()).as("on the holding thread").isTrue();
    } finally {
      view.unlock();
    }
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_14_6_waiterHonoursRetryHint() throws Exception {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    store.withoutPushOrQueue();
    Duration hint = Duration.ofMillis(300);
    store.retryHint(hint);
    LockOptions slowBackoff =
        LockOptions.builder().backoff(Duration.ofSeconds(30), Duration.ofMinutes(1)).build();
    LockClient waiterClient = kit.clientOf(store, slowBackoff);
    String name = kit.name("x");
    Lease held = kit.client().lock(name).tryAcquire().orElseThrow();
    Future<Long> acquiredAt =
        kit.acquiredAt(waiterClient.lock(name), Duration.ofSeconds(20), new AtomicBoolean());
    Thread.sleep(hint.toMillis());
    long released = System.nanoTime();
    held.release();
    long at = Kit.within(acquiredAt, Duration.ofSeconds(30), "the waiter");
    assertThat(Duration.ofNanos(at - released))
        .as("when a waiter with a 30 s backoff got the lock, its store hinting %s", hint)
        .isLessThanOrEqualTo(hint.plus(kit.slack()));
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_14_7_validityEndsWhileRenewalHangs() {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    LockClient faulty = kit.clientOf(store, LockOptions.defaults());
    Duration lease = kit.expiryLease(faulty);
    store.inject(Operation.EXTEND, Fault.HANG);
    AtomicInteger lost = new AtomicInteger();
    Lease held =
        faulty
            .lock(kit.name("x"))
            .withLeaseTime(lease)
            .withAutoRenew(true)
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.incrementAndGet());
    try {
      // Timed from before the store call, the lease ends by now + lease at the latest.
      long end = System.nanoTime() + lease.toNanos();
      while (System.nanoTime() - end < 0) {
        Thread.onSpinWait();
      }
      assertThat(held.isValid()).as("isValid() at the lease's end, its renewal hanging").isFalse();
      await().atMost(kit.slack()).pollInterval(Duration.ofMillis(10)).until(() -> lost.get() > 0);
    } finally {
      store.heal();
    }
    assertThat(lost.get()).as("onLost calls").isEqualTo(1);
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_14_8_renewalFindingHoldGoneIsReportedAtOnce() {
    Kit kit = kit();
    FaultInjectingStore store = kit.faultyStore();
    LockClient faulty = kit.clientOf(store, LockOptions.defaults());
    Duration lease = kit.expiryLease(faulty).plus(kit.slack()).multipliedBy(3);
    AtomicInteger lost = new AtomicInteger();
    Lease held =
        faulty
            .lock(kit.name("x"))
            .withLeaseTime(lease)
            .withAutoRenew(true)
            .tryAcquire()
            .orElseThrow()
            .onLost((l, why) -> lost.incrementAndGet());
    store.inject(Operation.EXTEND, Fault.ANSWER_NOT_HELD);
    long injected = System.nanoTime();
    Duration bound = lease.dividedBy(3).plus(kit.slack());
    await().atMost(bound).pollInterval(Duration.ofMillis(10)).until(() -> lost.get() > 0);
    assertThat(Duration.ofMillis(Kit.millisSince(injected)))
        .as("when the holder of a %s lease was told its renewal found nothing", lease)
        .isLessThan(lease);
    assertThat(held.isValid()).isFalse();
  }
}
