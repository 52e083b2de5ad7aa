package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The renewal and expiry schedule of a lease and of the watchdog, to the nanosecond: the tests
 * drive {@link EngineLease#tick(long)} and {@link LeaseWatchdog#sweep(long)} with chosen instants
 * instead of sleeping, so a deadline one nanosecond early or late fails them, on any machine.
 *
 * <p>Every lease here starts an hour from now, so the watchdog's own timer never reaches it while a
 * test runs; the test is the only one to say what time it is.
 */
class LeaseScheduleTest {

  private static final long HOUR = TimeUnit.HOURS.toNanos(1);
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final MemLockSpace space = MemLockSpace.named("schedule-" + UUID.randomUUID());
  private final List<LockObserver.RenewalOutcome> renewals = new CopyOnWriteArrayList<>();
  private final List<Duration> renewalTimes = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch renewalGate = new CountDownLatch(0);
  private final EngineClient client =
      new EngineClient(
          new MemLockStore(space),
          LockOptions.builder()
              .observer(
                  new LockObserver() {
                    @Override
                    public void renewalEnded(
                        String store, String lockName, RenewalOutcome outcome, Duration took) {
                      renewalTimes.add(took);
                      renewals.add(outcome);
                      awaitGate();
                    }
                  })
              .build());
  // The instant the test began; no deadline of a lease here is due at it.
  private final long past = System.nanoTime();
  private final long start = past + HOUR;

  private void awaitGate() {
    try {
      renewalGate.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @AfterEach
  void close() {
    renewalGate.countDown();
    space.endOutage();
    client.close();
  }

  /** A lease on {@code name} held in the store, started at {@link #start}. */
  private EngineLease lease(String name, Duration leaseTime, boolean autoRenew) throws Exception {
    LockKey key = new LockKey(name, LockMode.EXCLUSIVE);
    String owner = client.newOwner("t");
    assertThat(client.store().tryAcquire(key, owner, Duration.ofHours(2)).isAcquired()).isTrue();
    return new EngineLease(
        client, key, owner, OwnerScope.THIS_HOLD, 1, leaseTime, autoRenew, start);
  }

  /** Waits until the renewal thread ran everything handed to it so far (it runs in order). */
  private void drainRenewalThread() throws InterruptedException {
    CountDownLatch drained = new CountDownLatch(1);
    client.watchdog().execute(drained::countDown);
    assertThat(drained.await(30, TimeUnit.SECONDS)).isTrue();
  }

  private static AtomicInteger losses(EngineLease lease) {
    AtomicInteger told = new AtomicInteger();
    lease.onLost((l, why) -> told.incrementAndGet());
    return told;
  }

  @Test
  @DisplayName(
      "a lease without renewal is looked at again at its expiry, and is lost at that instant, not"
          + " a nanosecond sooner")
  void expiryInstant() throws Exception {
    EngineLease lease = lease("expiry", Duration.ofSeconds(30), false);
    AtomicInteger lost = losses(lease);
    long expiry = start + 30 * SECOND;

    assertThat(lease.tick(start)).isEqualTo(expiry);
    assertThat(lease.tick(expiry - 1)).isEqualTo(expiry);
    assertThat(lost).hasValue(0);

    assertThat(lease.tick(expiry)).isEqualTo(LeaseWatchdog.NONE);
    assertThat(lost).hasValue(1);
    assertThat(lease.tick(expiry + SECOND))
        .as("a lost lease needs no more looks")
        .isEqualTo(LeaseWatchdog.NONE);
    assertThat(lost).as("losses told").hasValue(1);
    assertThat(renewals).as("renewals of a lease without auto-renew").isEmpty();
  }

  @Test
  @DisplayName(
      "an auto-renewed lease is renewed at a third of its lease, not a nanosecond sooner, and once"
          + " while that renewal runs")
  void renewalInstant() throws Exception {
    EngineLease lease = lease("renew", Duration.ofSeconds(30), true);
    long due = start + 10 * SECOND;
    long expiry = start + 30 * SECOND;

    assertThat(lease.tick(start)).as("next look of a fresh lease").isEqualTo(due);
    assertThat(lease.tick(due - 1)).isEqualTo(due);
    drainRenewalThread();
    assertThat(renewals).as("renewals before the due instant").isEmpty();

    renewalGate = new CountDownLatch(1); // The renewal will stay "running" until the gate opens.
    assertThat(lease.tick(due))
        .as("next look while the renewal runs: the expiry, in case it never ends")
        .isEqualTo(expiry);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 1);
    assertThat(lease.tick(due + SECOND)).isEqualTo(expiry);
    assertThat(lease.tick(expiry - 1)).as("still valid one nanosecond before").isEqualTo(expiry);
    renewalGate.countDown();
    // Renewed: the next look is a third of a lease after the renewal ran, which is before the
    // lease's (future) start, so looking at `past` hands out no second renewal.
    await().atMost(Duration.ofSeconds(30)).until(() -> lease.tick(past) != expiry);
    assertThat(renewals)
        .as("renewals handed out")
        .containsExactly(LockObserver.RenewalOutcome.RENEWED);
    assertThat(renewalTimes)
        .singleElement()
        .satisfies(took -> assertThat(took).isBetween(Duration.ZERO, Duration.ofSeconds(30)));
    assertThat(lease.isValid()).isTrue();
  }

  @Test
  @DisplayName(
      "an extend restarts the schedule from its own start: renewal due a third of the new lease"
          + " later, expiry a whole lease later")
  void extendRestartsTheSchedule() throws Exception {
    EngineLease lease = lease("extended", Duration.ofSeconds(30), true);
    long before = System.nanoTime();
    lease.extend(Duration.ofSeconds(12));
    long after = System.nanoTime();
    assertThat(lease.tick(past)).isBetween(before + 4 * SECOND, after + 4 * SECOND);
    assertThat(lease.isValid()).isTrue();
  }

  @Test
  @DisplayName(
      "an auto-renewed lease whose renewal never came back is lost at its expiry, saying so")
  void expiryWhileRenewing() throws Exception {
    EngineLease lease = lease("stuck", Duration.ofSeconds(30), true);
    List<String> reasons = new CopyOnWriteArrayList<>();
    lease.onLost((l, why) -> reasons.add(why.getMessage()));
    renewalGate = new CountDownLatch(1);
    lease.tick(start + 10 * SECOND);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 1);
    assertThat(lease.tick(start + 30 * SECOND)).isEqualTo(LeaseWatchdog.NONE);
    assertThat(reasons).singleElement().asString().contains("expired before a renewal succeeded");
  }

  @Test
  @DisplayName(
      "a renewal that started before the lease's own start does not move its expiry back (an"
          + " extend that overtook a slow renewal keeps its longer validity)")
  void renewalNeverShortensValidity() throws Exception {
    EngineLease lease = lease("overtaken", Duration.ofSeconds(30), true);
    AtomicInteger lost = losses(lease);
    long expiry = start + 30 * SECOND;
    long before = System.nanoTime();
    lease.tick(start + 10 * SECOND); // Renews now, an hour before the lease's start.
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 1);
    long after = System.nanoTime();

    // The renewal set its next due time from its own start: a third of a lease after it ran, and
    // woke the watchdog for it.
    assertThat(lease.tick(past)).isBetween(before + 10 * SECOND, after + 10 * SECOND);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> client.watchdog().nextSweepAt() != LeaseWatchdog.NONE);
    assertThat(client.watchdog().nextSweepAt())
        .isBetween(before + 10 * SECOND, System.nanoTime() + 10 * SECOND);
    lease.tick(expiry - 1); // Renews again, and is not lost.
    assertThat(lost).as("losses at one nanosecond before the original expiry").hasValue(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 2);
    assertThat(lease.tick(expiry)).isEqualTo(LeaseWatchdog.NONE);
    assertThat(lost).hasValue(1);
  }

  @Test
  @DisplayName(
      "a renewal the store fails is retried after a tenth of the lease, at most a second, at least"
          + " 10 ms; if it keeps failing the loss names the store's failure")
  void failedRenewalRetry() throws Exception {
    assertRetryAfter(Duration.ofSeconds(30), SECOND); // A tenth would be 3 s: capped at 1 s.
    assertRetryAfter(Duration.ofSeconds(5), SECOND / 2);
    assertRetryAfter(Duration.ofMillis(60), TimeUnit.MILLISECONDS.toNanos(10)); // 6 ms: raised.
  }

  private void assertRetryAfter(Duration leaseTime, long retry) throws Exception {
    renewals.clear();
    EngineLease lease = lease("failing-" + leaseTime.toMillis(), leaseTime, true);
    AtomicInteger lost = losses(lease);
    List<String> reasons = new CopyOnWriteArrayList<>();
    lease.onLost((l, why) -> reasons.add(why.getMessage()));
    long expiry = start + leaseTime.toNanos();
    space.startOutage();
    long before = System.nanoTime();
    lease.tick(start + leaseTime.toNanos() / 3);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 1);
    long after = System.nanoTime();
    // The retry is due long before the lease's start: the next look is the retry.
    long next = lease.tick(past);
    assertThat(renewals).containsExactly(LockObserver.RenewalOutcome.FAILED);
    assertThat(next).as("retry of a %s lease", leaseTime).isBetween(before + retry, after + retry);
    space.endOutage();

    lease.tick(expiry);
    assertThat(lost).hasValue(1);
    assertThat(reasons)
        .singleElement()
        .asString()
        .contains("renewal failed until the lease ran out");
  }

  @Test
  @DisplayName(
      "a sweep looks at every lease and wakes at the earliest next look, but never sooner than"
          + " the minimum sweep interval after it ran")
  void sweepSchedulesTheEarliestLook() throws Exception {
    LeaseWatchdog watchdog = client.watchdog();
    EngineLease late = lease("late", Duration.ofSeconds(90), false);
    EngineLease early = lease("early", Duration.ofSeconds(30), false);
    EngineLease middle = lease("middle", Duration.ofSeconds(60), false);
    watchdog.watch(late, start + 90 * SECOND);
    watchdog.watch(early, start + 30 * SECOND);
    watchdog.watch(middle, start + 60 * SECOND);
    assertThat(watchdog.nextSweepAt()).as("after watching").isEqualTo(start + 30 * SECOND);

    watchdog.sweep(start);
    assertThat(watchdog.nextSweepAt())
        .as("after a sweep at the start")
        .isEqualTo(start + 30 * SECOND);

    long now = start + 30 * SECOND - 1;
    watchdog.sweep(now);
    assertThat(watchdog.nextSweepAt())
        .as("a look due in 1 ns waits the minimum interval")
        .isEqualTo(now + LeaseWatchdog.MIN_SWEEP_INTERVAL_NANOS);

    watchdog.sweep(start + 30 * SECOND);
    assertThat(early.isValid()).isFalse();
    assertThat(watchdog.nextSweepAt())
        .as("after the earliest expired")
        .isEqualTo(start + 60 * SECOND);

    watchdog.unwatch(middle);
    watchdog.unwatch(late);
    watchdog.sweep(start + 31 * SECOND);
    assertThat(watchdog.nextSweepAt())
        .as("with nothing left to watch")
        .isEqualTo(LeaseWatchdog.NONE);
  }

  @Test
  @DisplayName("wakeBy only ever brings the next sweep forward")
  void wakeByOnlyMovesForward() {
    LeaseWatchdog watchdog = client.watchdog();
    watchdog.wakeBy(start + 20 * SECOND);
    watchdog.wakeBy(start + 40 * SECOND);
    assertThat(watchdog.nextSweepAt()).isEqualTo(start + 20 * SECOND);
    watchdog.wakeBy(start + 10 * SECOND);
    assertThat(watchdog.nextSweepAt()).isEqualTo(start + 10 * SECOND);
    watchdog.shutdown();
    watchdog.wakeBy(start);
    assertThat(watchdog.nextSweepAt()).as("after shutdown").isEqualTo(start + 10 * SECOND);
  }

  @Test
  @DisplayName(
      "pending counts the watched leases and the renewals queued behind a busy renewal thread")
  void pendingCountsBoth() throws Exception {
    LeaseWatchdog watchdog = client.watchdog();
    EngineLease lease = lease("pending", Duration.ofSeconds(30), false);
    watchdog.watch(lease, start + 30 * SECOND);
    try (BusyRenewalThread busy = new BusyRenewalThread(watchdog)) {
      watchdog.execute(() -> {});
      assertThat(watchdog.pending()).as("one lease watched, one task queued").isEqualTo(2);
    }
  }

  @Test
  @DisplayName(
      "the watchdog runs on two daemon threads named for their client, and keeps one scheduled"
          + " sweep however often it is woken earlier")
  void watchdogThreads() throws InterruptedException {
    LeaseWatchdog watchdog = client.watchdog();
    for (int i = 0; i < 100; i++) {
      watchdog.wakeBy(start - i * SECOND);
    }
    assertThat(watchdog.scheduledSweeps()).as("sweeps scheduled").isEqualTo(1);
    drainRenewalThread();
    List<Thread> threads =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("locksmith-renewer-"))
            .toList();
    assertThat(threads)
        .extracting(Thread::getName)
        .anySatisfy(n -> assertThat(n).endsWith("-sweep"))
        .anySatisfy(n -> assertThat(n).endsWith("-store"));
    assertThat(threads).allSatisfy(t -> assertThat(t.isDaemon()).as(t.getName()).isTrue());
  }
}
