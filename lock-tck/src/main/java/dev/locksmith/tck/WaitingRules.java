package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.internal.EngineClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Promise 7: bounded, interruptible waiting that leaves nothing behind. */
public interface WaitingRules extends KitTest {

  @Test
  default void rule_7_1_tryAcquireNeverBlocks() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    DistributedLock contender = b.lock(name);
    contender.tryAcquire(); // warm the connection
    long worst = 0;
    for (int i = 0; i < 20; i++) {
      long start = System.nanoTime();
      assertThat(contender.tryAcquire()).isEmpty();
      worst = Math.max(worst, System.nanoTime() - start);
    }
    assertThat(Duration.ofNanos(worst)).isLessThan(kit.slack().dividedBy(2));
    lease.release();
  }

  @Test
  default void rule_7_2_timeoutIsBounded() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    Duration timeout = Duration.ofMillis(400);
    long start = System.nanoTime();
    assertThatThrownBy(() -> b.lock(name).acquire(timeout))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(Kit.millisSince(start))
        .isBetween(timeout.toMillis(), timeout.plus(kit.slack()).toMillis());
    start = System.nanoTime();
    assertThat(b.lock(name).tryAcquire(timeout)).isEmpty();
    assertThat(Kit.millisSince(start))
        .isBetween(timeout.toMillis(), timeout.plus(kit.slack()).toMillis());
    lease.release();
  }

  @Test
  default void rule_7_3_waiterWakesOnRelease() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    AtomicBoolean waiting = new AtomicBoolean();
    Future<Long> woke = kit.acquiredAt(b.lock(name), Duration.ofSeconds(60), waiting);
    await().until(waiting::get);
    // Where the release lands (before the wait, during a push wait or a backoff pause) changes
    // nothing: the waiter must hold the lock within the slack after it.
    Thread.sleep(300);
    long released = System.nanoTime();
    lease.release();
    long at = Kit.within(woke, Duration.ofSeconds(30), "the waiter");
    assertThat(Duration.ofNanos(at - released)).isLessThan(kit.slack());
  }

  @Test
  @Requires(Capability.WAKE_ON_RELEASE)
  default void rule_7_8_pushWakesAPatientWaiter() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    // A waiter that polls only every 30 s: in time only if the store's push wakes it. The holder's
    // lease is as long, so that a retry hint (its remaining lease) does not wake the waiter either.
    LockClient b =
        kit.client(
            LockOptions.builder().backoff(Duration.ofSeconds(30), Duration.ofSeconds(60)).build());
    String name = kit.name("x");
    Lease lease = a.lock(name).withLeaseTime(Duration.ofSeconds(60)).tryAcquire().orElseThrow();
    AtomicBoolean waiting = new AtomicBoolean();
    Future<Long> woke = kit.acquiredAt(b.lock(name), Duration.ofSeconds(90), waiting);
    await().until(waiting::get);
    // Long enough for the waiter to have subscribed and gone to sleep on a lightly loaded machine;
    // if it has not yet, it finds the lock free on its own and the rule passes anyway.
    Thread.sleep(kit.slack().toMillis());
    long released = System.nanoTime();
    lease.release();
    long at = Kit.within(woke, Duration.ofSeconds(120), "the waiter");
    assertThat(Duration.ofNanos(at - released))
        .as("when a waiter with a 30 s backoff got the lock after its release")
        .isLessThan(kit.slack());
  }

  @Test
  @Requires(value = Capability.FAIR_QUEUE, hooks = KitHook.ENGINE_CLIENT)
  default void rule_7_9_queueServesInOrder() throws Exception {
    Kit kit = kit();
    String name = kit.name("q");
    Lease held = kit.client().lock(name).tryAcquire().orElseThrow();
    FaultInjectingStore store = kit.faultyStore();
    LockClient waiters = kit.clientOf(store, LockOptions.defaults());
    List<String> order = new CopyOnWriteArrayList<>();
    List<Future<?>> runs = new ArrayList<>();
    ExecutorService pool = kit.pool(4);
    for (int i = 1; i <= 4; i++) {
      String who = "waiter " + i;
      int placesBefore = store.queued();
      runs.add(
          pool.submit(
              () -> {
                Lease l = waiters.lock(name).acquire(Duration.ofSeconds(120));
                order.add(who);
                l.release();
                return null;
              }));
      // The next waiter asks only once this one has its place.
      await()
          .atMost(kit.storeTimeout().plus(kit.slack()))
          .until(() -> store.queued() > placesBefore);
    }
    held.release();
    for (Future<?> run : runs) {
      Kit.within(run, Duration.ofSeconds(120), "a waiter");
    }
    assertThat(order)
        .as("the order in which waiters that queued one after another got the lock")
        .containsExactly("waiter 1", "waiter 2", "waiter 3", "waiter 4");
  }

  @Test
  @Requires(value = Capability.FAIR_QUEUE, hooks = KitHook.ENGINE_CLIENT)
  default void rule_7_10_waiterThatGaveUpLeavesTheQueue() throws Exception {
    Kit kit = kit();
    String name = kit.name("q");
    Lease held = kit.client().lock(name).tryAcquire().orElseThrow();
    FaultInjectingStore store = kit.faultyStore();
    LockClient waiters = kit.clientOf(store, LockOptions.defaults());
    Future<Optional<Lease>> impatient =
        kit.pool(1).submit(() -> waiters.lock(name).tryAcquire(Duration.ofSeconds(2)));
    await().atMost(kit.storeTimeout().plus(kit.slack())).until(() -> store.queued() == 1);
    Future<Long> patient =
        kit.acquiredAt(waiters.lock(name), Duration.ofSeconds(120), new AtomicBoolean());
    assertThat(Kit.within(impatient, Duration.ofSeconds(60), "the waiter that gives up"))
        .as("a 2 s wait while the lock is held")
        .isEmpty();
    await().atMost(kit.storeTimeout().plus(kit.slack())).until(() -> store.queued() == 2);
    long released = System.nanoTime();
    held.release();
    long at = Kit.within(patient, Duration.ofSeconds(120), "the waiter behind it");
    assertThat(Duration.ofNanos(at - released))
        .as("when the waiter behind one that gave up got the lock after its release")
        .isLessThan(kit.slack());
  }

  @Test
  default void rule_7_4_interruptLeavesNothing() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = kit.name("x");
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread waiter = kit.thread(() -> outcome.complete(acquireOutcome(b.lock(name))));
    Thread.sleep(300); // the rule holds wherever the interrupt lands; this lands it in the wait
    waiter.interrupt();
    Object result =
        outcome.get(kit.slack().plus(kit.storeTimeout()).toMillis(), TimeUnit.MILLISECONDS);
    assertThat(result).isInstanceOf(InterruptedException.class);
    lease.release();
    Optional<Lease> next = kit.client().lock(name).tryAcquire();
    assertThat(next).as("the lock right after the holder released").isPresent();
    next.get().release();
    if (b instanceof EngineClient) {
      EngineClient engine = (EngineClient) b;
      assertThat(engine.activeLeases()).as("leases of the interrupted client").isZero();
      await().atMost(kit.slack()).until(() -> engine.scheduledTimers() == 0);
    }
  }

  @Test
  default void rule_7_5_interruptRacingReleaseLeavesNothing() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    String name = kit.name("x");
    for (int round = 0; round < 10; round++) {
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      CompletableFuture<Object> outcome = new CompletableFuture<>();
      Thread waiter = kit.thread(() -> outcome.complete(acquireOutcome(b.lock(name))));
      Thread.sleep(20 + round * 5);
      lease.release();
      waiter.interrupt();
      Object result =
          outcome.get(kit.slack().plus(kit.storeTimeout()).toMillis(), TimeUnit.MILLISECONDS);
      if (result instanceof Lease) {
        ((Lease) result).release();
      } else {
        assertThat(result).isInstanceOf(InterruptedException.class);
      }
      // A store call cut short by the interrupt is undone by the engine, possibly in the
      // background: the lock must be free within the slack, not necessarily at once.
      Optional<Lease> free = c.lock(name).tryAcquire(kit.slack());
      assertThat(free).as("the lock after round %d", round).isPresent();
      free.get().release();
    }
  }

  private static Object acquireOutcome(DistributedLock lock) {
    try {
      return lock.acquire(Duration.ofSeconds(60));
    } catch (Throwable t) {
      return t;
    }
  }

  @Test
  default void rule_7_6_interruptedBeforeAcquire() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("x");
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> a.lock(name).acquire(Duration.ofSeconds(5)))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
    }
    assertThat(kit.client().lock(name).tryAcquire()).isPresent();
  }

  @Test
  default void rule_7_7_tryAcquireIgnoresInterruptFlag() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String free = kit.name("free");
    String view = kit.name("view");
    Lease held = b.lock(kit.name("held")).tryAcquire().orElseThrow();
    Optional<Lease> lease;
    Optional<Lease> busy;
    boolean tookView;
    ThreadOwnedLock lockView = a.lock(view).asLock();
    Thread.currentThread().interrupt();
    try {
      lease = a.lock(free).tryAcquire();
      busy = a.lock(kit.name("held")).tryAcquire();
      tookView = lockView.tryLock();
      assertThat(Thread.currentThread().isInterrupted())
          .as("the interrupt flag after tryAcquire() and tryLock()")
          .isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(lease).as("tryAcquire() of a free lock on an interrupted thread").isPresent();
    assertThat(busy).as("tryAcquire() of a held lock on an interrupted thread").isEmpty();
    assertThat(tookView).as("asLock().tryLock() of a free lock on an interrupted thread").isTrue();
    assertThat(b.lock(free).isLocked()).as("the lock taken on the interrupted thread").isTrue();
    lease.get().release();
    lockView.unlock();
    held.release();
    assertThat(b.lock(free).tryAcquire()).as("the lock after its release").isPresent();
  }

  @Test
  @Requires(hooks = KitHook.LINKS)
  default void rule_7_11_waiterToldWhenItsLinkDies() throws Exception {
    Kit kit = kit();
    ClientLinks links = kit.links();
    LockClient holder = kit.client();
    // A waiter that sleeps on the store's push or in its queue would not ask again for 30 s: only
    // the store noticing its dead connection (or session) can tell it sooner.
    boolean sleeps =
        holder.capabilities().contains(Capability.WAKE_ON_RELEASE)
            || holder.capabilities().contains(Capability.FAIR_QUEUE);
    LockOptions options =
        sleeps
            ? LockOptions.builder().backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()
            : LockOptions.defaults();
    LockClient waiter = kit.adopt(links.open(options));
    String name = kit.name("x");
    Lease held = holder.lock(name).tryAcquire().orElseThrow();
    Duration bound = kit.storeTimeout().plus(kit.expiryLease(holder)).plus(kit.slack());
    Duration wait = bound.multipliedBy(4).plusSeconds(30);
    AtomicBoolean asking = new AtomicBoolean();
    CompletableFuture<Throwable> ended =
        CompletableFuture.supplyAsync(
            () -> {
              asking.set(true);
              try {
                waiter.lock(name).acquire(wait).release();
                return new AssertionError("the cut-off waiter acquired a held lock");
              } catch (Throwable t) {
                return t;
              }
            },
            kit.pool(1));
    await().atMost(Duration.ofSeconds(30)).untilTrue(asking);
    // Time to settle into its wait (a busy answer, a subscription, a place in the queue); should it
    // still be asking when cut, the same promise holds.
    Thread.sleep(kit.slack().toMillis());
    long cut = System.nanoTime();
    links.cut(waiter);
    Throwable outcome;
    try {
      outcome = ended.get(bound.plus(kit.slack()).toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError(
          "a waiter whose connection was cut was still waiting after "
              + Kit.millisSince(cut)
              + " ms (bound "
              + bound.toMillis()
              + " ms, its wait "
              + wait.toSeconds()
              + " s)");
    } finally {
      held.release();
    }
    assertThat(outcome)
        .as("how the cut-off waiter's acquire ended")
        .isInstanceOf(dev.locksmith.LockStoreException.class);
    assertThat(Kit.millisSince(cut)).isLessThanOrEqualTo(bound.toMillis());
  }
}
