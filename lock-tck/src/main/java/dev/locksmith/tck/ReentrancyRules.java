package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.UnsupportedCapabilityException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Promise 6: the same owner gets nested holds; the thread view is reentrant per thread. */
public interface ReentrancyRules extends KitTest {

  @Test
  @Requires(Capability.REENTRANCY)
  default void rule_6_1_nestedHolds() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    DistributedLock lock = a.lock(name).withOwner("tck-owner");
    Lease first = lock.tryAcquire().orElseThrow();
    Lease second = lock.tryAcquire().orElseThrow();
    Lease third = lock.tryAcquire().orElseThrow();
    LockClient other = kit.client();
    third.release();
    second.release();
    assertThat(other.lock(name).tryAcquire()).as("with one hold left").isEmpty();
    first.release();
    Optional<Lease> next = other.lock(name).tryAcquire();
    assertThat(next).as("after every hold was released").isPresent();
    next.get().release();
  }

  @Test
  @Requires(Capability.REENTRANCY)
  default void rule_6_2_ownerAcrossClients() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Lease first = a.lock(name).withOwner("tck-owner").tryAcquire().orElseThrow();
    assertThat(b.lock(name).withOwner("tck-other").tryAcquire()).as("another owner").isEmpty();
    Lease second = b.lock(name).withOwner("tck-owner").tryAcquire().orElseThrow();
    first.release();
    assertThat(kit.client().lock(name).tryAcquire()).as("with one hold left").isEmpty();
    second.release();
    assertThat(kit.client().lock(name).tryAcquire()).as("after both holds").isPresent();
  }

  @Test
  default void rule_6_3_reentrancyDeclaredTruthfully() {
    Kit kit = kit();
    LockClient a = kit.client();
    DistributedLock lock = a.lock(kit.name("x"));
    if (a.capabilities().contains(Capability.REENTRANCY)) {
      assertThat(lock.withOwner("tck-owner").name()).isEqualTo(lock.name());
    } else {
      assertThatThrownBy(() -> lock.withOwner("tck-owner"))
          .isInstanceOfSatisfying(
              UnsupportedCapabilityException.class,
              e -> assertThat(e.capability()).isEqualTo(Capability.REENTRANCY));
    }
  }

  @Test
  default void rule_6_4_threadViewCounts() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    ThreadOwnedLock view = a.lock(name).asLock();
    assertThat(view.getHoldCount()).isZero();
    view.lock();
    assertThat(view.tryLock()).isTrue();
    assertThat(view.getHoldCount()).isEqualTo(2);
    assertThat(view.isHeldByCurrentThread()).isTrue();
    assertThat(a.lock(name).asLock().getHoldCount()).as("another view of the name").isEqualTo(2);
    LockClient other = kit.client();
    view.unlock();
    assertThat(view.getHoldCount()).isEqualTo(1);
    assertThat(other.lock(name).tryAcquire()).as("with one hold left").isEmpty();
    view.unlock();
    assertThat(view.getHoldCount()).isZero();
    assertThat(view.isHeldByCurrentThread()).isFalse();
    Optional<Lease> next = other.lock(name).tryAcquire();
    assertThat(next).as("after the last unlock").isPresent();
    next.get().release();
  }

  @Test
  default void rule_6_5_threadViewIsThreadOwned() throws Exception {
    Kit kit = kit();
    ThreadOwnedLock view = kit.client().lock(kit.name("x")).asLock();
    assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class);
    view.lock();
    ExecutorService pool = kit.pool(1);
    assertThat(Kit.within(pool.submit(() -> view.tryLock()), Duration.ofSeconds(10), "tryLock"))
        .as("tryLock on another thread")
        .isFalse();
    Future<?> foreignUnlock = pool.submit(view::unlock);
    assertThatThrownBy(() -> foreignUnlock.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalMonitorStateException.class);
    assertThat(view.getHoldCount()).as("hold after a foreign unlock").isEqualTo(1);
    view.unlock();
  }

  @Test
  default void rule_6_6_noConditions() {
    Kit kit = kit();
    ThreadOwnedLock view = kit.client().lock(kit.name("x")).asLock();
    assertThatThrownBy(view::newCondition).isInstanceOf(UnsupportedOperationException.class);
  }
}
