package dev.locksmith.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour Spring Integration users rely on from a {@code LockRegistry}, modelled on Spring
 * Integration's own {@code RedisLockRegistryTests} and {@code JdbcLockRegistryTests} (which it does
 * not publish), run against one real store per subclass. The store is started once per class; two
 * clients on it stand for two processes, each with its own registry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockRegistryContract {

  private static final AtomicInteger KEYS = new AtomicInteger();

  RunningStore store;
  private LockClient processA;
  private LockClient processB;
  private ExecutorService threads;

  /** This test's own registry in process A and in process B. */
  LocksmithLockRegistry registryA;

  LocksmithLockRegistry registryB;

  /** A lock key no other test uses. */
  String key;

  /** The name of the {@link StoreFixture} this class runs on. */
  abstract String fixtureName();

  @BeforeAll
  void startStore() {
    StoreFixture fixture = StoreFixture.named(fixtureName());
    Optional<String> unavailable = fixture.unavailableBecause();
    if (unavailable.isPresent()) {
      // Never a silent skip: the reason says how to install the store.
      throw new IllegalStateException(fixtureName() + " cannot run here: " + unavailable.get());
    }
    store = fixture.start();
    processA = store.open(LockOptions.defaults());
    processB = store.open(LockOptions.defaults());
    threads = Executors.newCachedThreadPool();
  }

  @AfterAll
  void stopStore() {
    if (threads != null) {
      threads.shutdownNow();
    }
    try (RunningStore s = store;
        LockClient a = processA;
        LockClient b = processB) {
      // closes the clients, then the store
    }
  }

  @BeforeEach
  void freshRegistries(TestInfo test) {
    registryA = new LocksmithLockRegistry(processA);
    registryB = new LocksmithLockRegistry(processB);
    key = "si-" + test.getTestMethod().orElseThrow().getName() + "-" + KEYS.incrementAndGet();
  }

  @Test
  @DisplayName("lock() holds the key against another process until unlock() frees it")
  void lockHoldsTheKeyAgainstAnotherProcessUntilUnlock() {
    Lock lock = registryA.obtain(key);
    lock.lock();
    try {
      assertThat(registryA.currentLease(key)).isPresent();
      assertThat(registryB.obtain(key).tryLock()).isFalse();
    } finally {
      lock.unlock();
    }
    assertThat(registryA.currentLease(key)).isEmpty();
    lockAndUnlock(registryB.obtain(key));
  }

  @Test
  @DisplayName("a thread locks again without waiting; the key frees at the last unlock()")
  void reentrantLockFreesTheKeyAtTheLastUnlock() throws Exception {
    Lock lock = registryA.obtain(key);
    assertThat(registryA.obtain(key)).isSameAs(lock);
    lock.lock();
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
    lock.lockInterruptibly();
    lock.unlock();
    lock.unlock();
    lock.unlock();
    assertThat(registryB.obtain(key).tryLock()).isFalse();
    lock.unlock();
    lockAndUnlock(registryB.obtain(key));
  }

  @Test
  @DisplayName("two threads of one registry exclude each other; the waiter gets it at unlock()")
  void twoThreadsOfOneRegistryExcludeEachOther() throws Exception {
    Lock lock = registryA.obtain(key);
    excludesUntilUnlock(lock, lock);
  }

  @Test
  @DisplayName("two processes' registries exclude each other; the waiter gets it at unlock()")
  void twoRegistriesExcludeEachOther() throws Exception {
    excludesUntilUnlock(registryA.obtain(key), registryB.obtain(key));
  }

  /**
   * While this thread holds {@code held}, another thread's {@code contender} (the same lock, or the
   * other registry's) is refused by {@code tryLock()} and kept waiting by {@code lock()}, which
   * gets it once {@code held} is unlocked.
   */
  private void excludesUntilUnlock(Lock held, Lock contender) throws Exception {
    held.lock();
    Future<?> waiter;
    try {
      assertThat(threads.submit(() -> contender.tryLock()).get()).isFalse();
      waiter =
          threads.submit(
              () -> {
                contender.lock();
                contender.unlock();
              });
      assertThatThrownBy(() -> waiter.get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
    } finally {
      held.unlock();
    }
    waiter.get(10, TimeUnit.SECONDS);
  }

  @Test
  @DisplayName("threads of two registries never overlap inside the lock")
  void threadsOfTwoRegistriesNeverOverlap() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    AtomicInteger entries = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (LocksmithLockRegistry registry : List.of(registryA, registryB, registryA, registryB)) {
      workers.add(
          threads.submit(
              () -> {
                Lock lock = registry.obtain(key);
                for (int i = 0; i < 5; i++) {
                  lock.lock();
                  try {
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    entries.incrementAndGet();
                    Thread.yield();
                    inside.decrementAndGet();
                  } finally {
                    lock.unlock();
                  }
                }
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(30, TimeUnit.SECONDS);
    }
    assertThat(entries).hasValue(20);
    assertThat(mostInside).hasValue(1);
  }

  @Test
  @DisplayName("tryLock(time) gives up after the time while another process holds the key")
  void tryLockWithTimeGivesUpAfterTheTime() throws Exception {
    Lock held = registryB.obtain(key);
    held.lock();
    Lock lock = registryA.obtain(key);
    try {
      assertThat(lock.tryLock()).isFalse();
      long start = System.nanoTime();
      assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      assertThat(waited)
          .isGreaterThanOrEqualTo(Duration.ofMillis(280))
          .isLessThan(Duration.ofMillis(300).plus(store.timingSlack()).plus(store.storeTimeout()));
    } finally {
      held.unlock();
    }
    assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
    lock.unlock();
  }

  @Test
  @DisplayName("unlock() by a thread that does not hold the lock throws IllegalMonitorState")
  void unlockByAnotherThreadThrowsIllegalMonitorState() throws Exception {
    Lock lock = registryA.obtain(key);
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    lock.lock();
    try {
      Future<?> stranger = threads.submit(lock::unlock);
      assertThatThrownBy(stranger::get)
          .hasCauseInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining(key);
      assertThat(registryB.obtain(key).tryLock()).isFalse();
    } finally {
      lock.unlock();
    }
    lockAndUnlock(registryB.obtain(key));
  }

  @Test
  @DisplayName(
      "lockInterruptibly() ends with InterruptedException when interrupted, holding nothing")
  void lockInterruptiblyEndsWhenInterrupted() throws Exception {
    Lock held = registryB.obtain(key);
    held.lock();
    Lock lock = registryA.obtain(key);
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                lock.lockInterruptibly();
                lock.unlock();
                outcome.set(new AssertionError("lockInterruptibly() returned"));
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    waiter.start();
    awaitWaiting(waiter);
    waiter.interrupt();
    waiter.join(Duration.ofSeconds(10).toMillis());
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    held.unlock();
    // Nothing was left behind: neither the local lock nor a hold in the store.
    lockAndUnlock(lock);
    lockAndUnlock(registryB.obtain(key));
  }

  @Test
  @DisplayName("lock() waits through an interrupt, then returns holding, the interrupt kept")
  void lockWaitsThroughInterrupts() throws Exception {
    Lock held = registryB.obtain(key);
    held.lock();
    Lock lock = registryA.obtain(key);
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                lock.lock();
                boolean interrupted = Thread.interrupted();
                lock.unlock();
                outcome.set(interrupted);
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    waiter.start();
    awaitWaiting(waiter);
    waiter.interrupt();
    held.unlock();
    waiter.join(Duration.ofSeconds(10).toMillis());
    assertThat(outcome.get()).isEqualTo(true);
    lockAndUnlock(registryB.obtain(key));
  }

  @Test
  @DisplayName("renewLock() keeps a hold without auto-renew past its lease; only its holder may")
  void renewLockKeepsTheHoldPastItsLease() throws Exception {
    Duration lease = store.shortLease();
    try (LockClient noRenew =
        store.open(LockOptions.builder().leaseTime(lease).autoRenew(false).build())) {
      LocksmithLockRegistry registry = new LocksmithLockRegistry(noRenew);
      Lock lock = registry.obtain(key);
      assertThatThrownBy(() -> registry.renewLock(key))
          .isInstanceOf(IllegalMonitorStateException.class);
      lock.lock();
      try {
        assertThat(threads.submit(() -> tryRenew(registry)).get())
            .isInstanceOf(IllegalMonitorStateException.class);
        long end = System.nanoTime() + lease.plus(store.timingSlack()).toNanos();
        while (System.nanoTime() < end) {
          registry.renewLock(key);
          Thread.sleep(lease.toMillis() / 4);
        }
        registry.renewLock(key, lease.multipliedBy(2));
        assertThat(registryB.obtain(key).tryLock()).isFalse();
      } finally {
        lock.unlock();
      }
      assertThatThrownBy(() -> registry.renewLock(key))
          .isInstanceOf(IllegalMonitorStateException.class);
    }
    lockAndUnlock(registryB.obtain(key));
  }

  @Test
  @DisplayName("unlock() after the lease expired without renewal throws ConcurrentModification")
  void unlockAfterTheLeaseExpiredThrows() throws Exception {
    Duration lease = store.shortLease();
    try (LockClient noRenew =
        store.open(LockOptions.builder().leaseTime(lease).autoRenew(false).build())) {
      Lock lock = new LocksmithLockRegistry(noRenew).obtain(key);
      lock.lock();
      Lock other = registryB.obtain(key);
      assertThat(
              other.tryLock(
                  lease.plus(store.timingSlack()).plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS))
          .isTrue();
      try {
        assertThatThrownBy(lock::unlock)
            .isInstanceOf(ConcurrentModificationException.class)
            .hasCauseInstanceOf(LeaseLostException.class)
            .hasMessageContaining(key);
        // The thread's hold ended with the failed unlock(): it is not held twice.
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.tryLock()).isFalse();
      } finally {
        other.unlock();
      }
      lockAndUnlock(lock);
    }
  }

  @Test
  @DisplayName("unlock() after the key was deleted in the store throws ConcurrentModification")
  void unlockAfterTheKeyWasDeletedThrows() {
    Lock lock = registryA.obtain(key);
    lock.lock();
    outsideActor().deleteHolds(key, LockMode.EXCLUSIVE);
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(ConcurrentModificationException.class)
        .hasCauseInstanceOf(LeaseLostException.class)
        .hasMessageContaining("released in the store");
    assertThat(registryA.currentLease(key)).isEmpty();
    lockAndUnlock(registryB.obtain(key));
    lockAndUnlock(lock);
  }

  @Test
  @DisplayName("a nested lock after the key was deleted throws; the outer unlock() reports it too")
  void nestedLockAfterTheKeyWasDeletedThrows() throws Exception {
    Lock lock = registryA.obtain(key);
    lock.lock();
    outsideActor().deleteHolds(key, LockMode.EXCLUSIVE);
    Lock other = registryB.obtain(key);
    assertThat(other.tryLock(10, TimeUnit.SECONDS)).isTrue();
    try {
      assertThatThrownBy(lock::tryLock)
          .isInstanceOf(ConcurrentModificationException.class)
          .hasCauseInstanceOf(LeaseLostException.class);
      assertThatThrownBy(lock::lock).isInstanceOf(ConcurrentModificationException.class);
      // The failed nested attempts did not count: one unlock() ends the thread's hold.
      assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
      assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
      assertThat(lock.tryLock()).isFalse();
    } finally {
      other.unlock();
    }
    lockAndUnlock(lock);
  }

  @Test
  @DisplayName("expireUnusedOlderThan() drops unused locks only; a dropped one still excludes")
  void expireUnusedOlderThanDropsUnusedLocksOnly() throws Exception {
    Lock unused = registryA.obtain(key + "-unused");
    Lock held = registryA.obtain(key);
    held.lock();
    try {
      registryA.expireUnusedOlderThan(60_000);
      assertThat(registryA.obtain(key + "-unused")).isSameAs(unused);
      registryA.expireUnusedOlderThan(0);
      assertThat(registryA.obtain(key)).isSameAs(held);
      Lock fresh = registryA.obtain(key + "-unused");
      assertThat(fresh).isNotSameAs(unused);
      // The dropped instance and the fresh one are two owners in the store: still exclusive.
      unused.lock();
      try {
        assertThat(threads.submit(() -> fresh.tryLock()).get()).isFalse();
      } finally {
        unused.unlock();
      }
    } finally {
      held.unlock();
    }
    registryA.expireUnusedOlderThan(60_000);
    assertThat(registryA.obtain(key)).isSameAs(held);
    registryA.expireUnusedOlderThan(0);
    assertThat(registryA.obtain(key)).isNotSameAs(held);
  }

  @Test
  @DisplayName("LockRegistryLeaderInitiator: one of two processes leads; it moves when it stops")
  void leaderInitiatorElectsOneAndMovesWhenTheLeaderStops() throws Exception {
    try (Elector a = new Elector(registryA, "a", key, 200, 50).start()) {
      awaitTrue(a::isLeader, "process A leads");
      try (Elector b = new Elector(registryB, "b", key, 200, 50).start()) {
        awaitTrue(() -> b.failedToAcquire.get() >= 2, "process B tried and failed twice");
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        a.stop();
        awaitTrue(b::isLeader, "process B leads after A stopped");
        // Each initiator publishes its event just after it changes its state: wait for both.
        awaitTrue(() -> !a.isLeader() && a.revoked.get() == 1, "process A revoked once");
        awaitTrue(() -> b.granted.get() == 1, "process B granted once");
      }
    }
  }

  @Test
  @DisplayName("LockRegistryLeaderInitiator: leadership moves when the leader's key is deleted")
  void leaderInitiatorStepsDownWhenItsKeyIsDeleted() throws Exception {
    // A pauses 3 s after losing the lead; B, waiting on the store, takes it meanwhile.
    try (Elector a = new Elector(registryA, "a", key, 200, 3_000).start()) {
      awaitTrue(a::isLeader, "process A leads");
      try (Elector b = new Elector(registryB, "b", key, 200, 50).start()) {
        awaitTrue(() -> b.failedToAcquire.get() >= 1, "process B tried and failed");
        outsideActor().deleteHolds(key, LockMode.EXCLUSIVE);
        awaitTrue(() -> a.revoked.get() == 1, "process A noticed at its heartbeat");
        awaitTrue(() -> b.isLeader() && !a.isLeader(), "process B leads, A does not");
        assertThat(a.granted).hasValue(1);
      }
    }
  }

  private OutsideActor outsideActor() {
    return store
        .outsideActor()
        .orElseThrow(
            () ->
                new AssertionError(
                    fixtureName() + "'s fixture cannot delete a hold behind the clients' backs"));
  }

  /** What renewLock(key) does on this thread: "renewed", or the exception it threw. */
  private Object tryRenew(LocksmithLockRegistry registry) {
    try {
      registry.renewLock(key);
      return "renewed";
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static void lockAndUnlock(Lock lock) {
    assertThat(lock.tryLock()).as("the lock is free").isTrue();
    lock.unlock();
  }

  /** Waits (bounded) until {@code thread} is parked or sleeping, that is waiting for the lock. */
  private static void awaitWaiting(Thread thread) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < end) {
      Thread.State state = thread.getState();
      if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
        return;
      }
      Thread.sleep(5);
    }
  }

  private void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    Duration limit = Duration.ofSeconds(15).plus(store.timingSlack());
    long end = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within " + limit + ": " + what);
      }
      Thread.sleep(10);
    }
  }
}
