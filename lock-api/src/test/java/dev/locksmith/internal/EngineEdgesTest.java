package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The engine's promises at their edges, each seen from the store's side or through a lease built at
 * a chosen instant: which calls a closed client refuses, which capabilities an option needs, what
 * the observer is told, and what a lease does when it ends some unusual way.
 */
class EngineEdgesTest {

  private final List<EngineClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(EngineClient::close);
  }

  private EngineClient client(TimedStore store, LockOptions options) {
    EngineClient c = new EngineClient(store, options);
    clients.add(c);
    return c;
  }

  private static TimedStore store() {
    return new TimedStore(StoreTiming.MILLISECONDS);
  }

  private static AtomicInteger losses(Lease lease) {
    AtomicInteger told = new AtomicInteger();
    lease.onLost((l, why) -> told.incrementAndGet());
    return told;
  }

  @Test
  @DisplayName(
      "a lock knows its name; acquire() with no limit takes a free lock and waits for a held one")
  void acquireWithoutLimit() throws Exception {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    EngineClient b = client(store, LockOptions.defaults());
    DistributedLock lock = a.lock("job");
    assertThat(lock.name()).isEqualTo("job");
    Lease held = lock.acquire();
    CompletableFuture<Lease> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return b.lock("job").acquire();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiting).as("a waiter while the lock is held").isNotDone();
    held.release();
    Lease next = waiting.get(10, TimeUnit.SECONDS);
    assertThat(next.isValid()).isTrue();
    next.release();
  }

  @Test
  @DisplayName("a closed client refuses isLocked, asLock and every acquire with 'closed'")
  void closedClientRefusesUse() {
    EngineClient a = client(store(), LockOptions.defaults());
    DistributedLock lock = a.lock("job");
    a.close();
    // The client refuses, before its (closed) store would: "this lock client is closed".
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            lock::isLocked, lock::asLock, lock::tryAcquire, () -> a.lockAll("x", "y"))) {
      assertThatThrownBy(call)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("this lock client is closed");
    }
  }

  @Test
  @DisplayName("withOwner needs REENTRANCY: a store without it refuses, naming the capability")
  void withOwnerNeedsReentrancy() {
    TimedStore store = store();
    store.promises = Set.of(Capability.FENCING);
    EngineClient a = client(store, LockOptions.defaults());
    assertThatThrownBy(() -> a.lock("job").withOwner("worker-1"))
        .isInstanceOf(UnsupportedCapabilityException.class)
        .hasMessageContaining("REENTRANCY");
  }

  @Test
  @DisplayName(
      "on a store with a queue, tryAcquire() asks once and never joins the queue; a wait joins"
          + " it once")
  void tryAcquireNeverQueues() throws InterruptedException {
    TimedStore store = new TimedStore(StoreTiming.MILLISECONDS, MemLockStore.Waiters.QUEUE);
    EngineClient a = client(store, LockOptions.defaults());
    EngineClient b = client(store, LockOptions.defaults());
    Lease held = a.lock("job").tryAcquire().orElseThrow();
    assertThat(b.lock("job").tryAcquire()).isEmpty();
    assertThat(store.enqueued).as("queue joins of tryAcquire()").hasValue(0);
    assertThat(b.lock("job").tryAcquire(Duration.ofMillis(50))).isEmpty();
    assertThat(store.enqueued).as("queue joins of tryAcquire(wait)").hasValue(1);
    held.release();
  }

  @Test
  @DisplayName("the observer is told how long an acquire took: no less than its wait, no more")
  void observedAcquireTime() throws InterruptedException {
    List<Duration> took = new CopyOnWriteArrayList<>();
    LockOptions observed =
        LockOptions.builder()
            .observer(
                new LockObserver() {
                  @Override
                  public void acquireEnded(
                      String store, String lockName, AcquireOutcome outcome, Duration d) {
                    took.add(d);
                  }
                })
            .build();
    TimedStore store = store();
    Lease held = client(store, LockOptions.defaults()).lock("job").tryAcquire().orElseThrow();
    EngineClient b = client(store, observed);
    long before = System.nanoTime();
    assertThat(b.lock("job").tryAcquire(Duration.ofMillis(200))).isEmpty();
    Duration elapsed = Duration.ofNanos(System.nanoTime() - before);
    assertThat(took)
        .singleElement()
        .satisfies(d -> assertThat(d).isBetween(Duration.ofMillis(200), elapsed));
    held.release();
  }

  @Test
  @DisplayName(
      "a lease past its lease time is invalid even if nobody marked it lost (a stalled watchdog),"
          + " but a session-bound lease is valid until its session says otherwise")
  void validityWithoutTheWatchdog() {
    TimedStore timed = store();
    EngineClient a = client(timed, LockOptions.defaults());
    LockKey key = new LockKey("job", LockMode.EXCLUSIVE);
    long longAgo = System.nanoTime() - TimeUnit.SECONDS.toNanos(10);
    assertThat(lease(a, key, longAgo).isValid()).as("timed lease, 9 s past its expiry").isFalse();
    assertThat(lease(a, key, System.nanoTime()).isValid()).as("timed lease, fresh").isTrue();

    TimedStore session = store();
    session.sessionEvents = Optional.of(listener -> {});
    EngineClient s = client(session, LockOptions.defaults());
    assertThat(lease(s, key, longAgo).isValid()).as("session-bound lease, 9 s past").isTrue();
  }

  private static EngineLease lease(EngineClient client, LockKey key, long startNanos) {
    return new EngineLease(
        client,
        key,
        client.newOwner("t"),
        OwnerScope.THIS_HOLD,
        1,
        Duration.ofSeconds(1),
        false,
        startNanos);
  }

  @Test
  @DisplayName(
      "a renewal the store failed is retried before the lease runs out: an outage from before the"
          + " first renewal to past it does not lose the lease")
  void failedRenewalIsRetried() {
    List<LockObserver.RenewalOutcome> renewals = new CopyOnWriteArrayList<>();
    TimedStore store = store();
    EngineClient a =
        client(
            store,
            LockOptions.builder()
                .leaseTime(Duration.ofSeconds(6))
                .observer(
                    new LockObserver() {
                      @Override
                      public void renewalEnded(
                          String s, String lockName, RenewalOutcome outcome, Duration took) {
                        renewals.add(outcome);
                      }
                    })
                .build());
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    AtomicInteger lost = losses(lease);
    store.space().startOutage();
    // The first renewal is due at 2 s; it fails, and is retried every 600 ms.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> renewals.contains(LockObserver.RenewalOutcome.FAILED));
    store.space().endOutage();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> renewals.contains(LockObserver.RenewalOutcome.RENEWED) || lost.get() > 0);
    assertThat(lost).as("losses of a lease whose renewal was retried after the outage").hasValue(0);
    assertThat(lease.isValid()).isTrue();
    lease.release();
  }

  @Test
  @DisplayName("onLost returns the lease, so listeners can be chained")
  void onLostIsFluent() {
    TimedStore store = store();
    Lease lease = client(store, LockOptions.defaults()).lock("job").tryAcquire().orElseThrow();
    assertThat(lease.onLost((l, why) -> {})).isSameAs(lease);
    assertThat(lease.toString()).contains("job").contains("token=");
    store.space().deleteHolds("job", LockMode.EXCLUSIVE);
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
    assertThat(lease.onLost((l, why) -> {})).as("onLost on a lost lease").isSameAs(lease);
  }

  @Test
  @DisplayName(
      "releaseHeldAtLeast hands the lease back to the store: the client no longer tracks it; a"
          + " hold found gone is told to the lease's listeners too")
  void releaseHeldAtLeastEndsTheLease() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    a.lock("kept").tryAcquire().orElseThrow().releaseHeldAtLeast(Duration.ofSeconds(10));
    assertThat(a.activeLeases()).as("leases tracked after releaseHeldAtLeast").isZero();

    Lease gone = a.lock("gone").tryAcquire().orElseThrow();
    AtomicInteger told = losses(gone);
    store.space().deleteHolds("gone", LockMode.EXCLUSIVE);
    assertThatThrownBy(() -> gone.releaseHeldAtLeast(Duration.ofSeconds(10)))
        .isInstanceOf(LeaseLostException.class);
    assertThat(told).hasValue(1);
  }

  @Test
  @DisplayName("a lease lost to an extend that found the hold gone leaves no timer behind")
  void lostLeaseLeavesNoTimer() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.builder().autoRenew(false).build());
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    assertThat(a.scheduledTimers()).isEqualTo(1);
    store.space().deleteHolds("job", LockMode.EXCLUSIVE);
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
        .isInstanceOf(LeaseLostException.class);
    assertThat(a.scheduledTimers()).isZero();
  }

  @Test
  @DisplayName(
      "an extend that the store granted while the lease was released meanwhile reports the"
          + " release instead of reviving the lease")
  void releasedDuringExtend() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    AtomicReference<Lease> releaseMe = new AtomicReference<>(lease);
    store.duringExtend = () -> releaseMe.getAndSet(null).release();
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already released");
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  @DisplayName(
      "closing a client whose lease was lost, or whose store fails the release, still closes it"
          + " and its store")
  void closeSurvivesLostAndFailingReleases() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    Lease lost = a.lock("lost").tryAcquire().orElseThrow();
    store.space().deleteHolds("lost", LockMode.EXCLUSIVE);
    assertThatThrownBy(() -> lost.extend(Duration.ofSeconds(5)))
        .isInstanceOf(LeaseLostException.class);
    a.lock("failing").tryAcquire().orElseThrow();
    store.space().startOutage();
    a.close();
    store.space().endOutage();
    assertThat(store.closed).isTrue();
    assertThatThrownBy(() -> a.lock("x")).hasMessageContaining("closed");
  }

  @Test
  @DisplayName(
      "detachStore refuses a client that holds leases, and hands over an open store otherwise,"
          + " closing the client")
  void detachStore() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    Lease held = a.lock("job").tryAcquire().orElseThrow();
    assertThatThrownBy(a::detachStore).hasMessageContaining("holds leases");
    held.release();
    assertThat(a.watchdog().isShutdown()).as("the watchdog before detaching").isFalse();
    assertThat(a.detachStore()).isSameAs(store);
    assertThat(store.closed).isFalse();
    assertThat(a.watchdog().isShutdown()).as("the detached client's watchdog stopped").isTrue();
    assertThatThrownBy(() -> a.lock("x")).hasMessageContaining("closed");
    assertThatThrownBy(a::detachStore).hasMessageContaining("closed");
    store.close();
  }

  @Test
  @DisplayName(
      "a lock acquired while its client closed is not handed out but given back before the store"
          + " closes: the caller is told the client is closed, and the lock is free at once")
  void acquiredWhileClosing() throws Exception {
    TimedStore store = store();
    AtomicInteger ended = new AtomicInteger();
    EngineClient a =
        client(
            store,
            LockOptions.builder()
                .observer(
                    new LockObserver() {
                      @Override
                      public void leaseEnded(String s, Lease lease) {
                        ended.incrementAndGet();
                      }
                    })
                .build());
    Thread closer = new Thread(a::close, "closer");
    store.duringAcquire =
        () -> {
          // The store has granted the lock; the client starts closing before the answer is back.
          closer.start();
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> closer.getState() == Thread.State.TIMED_WAITING);
        };
    assertThatThrownBy(() -> a.lock("job").tryAcquire()).hasMessageContaining("closed");
    store.duringAcquire = () -> {};
    closer.join(10_000);
    assertThat(closer.isAlive()).as("close() still running").isFalse();
    assertThat(a.activeLeases()).isZero();
    assertThat(ended).as("leases reported ended that were never handed out").hasValue(0);
    assertThat(store.locked("job"))
        .as("the lock granted while the client closed, after close()")
        .isFalse();
    assertThat(store.closed).isTrue();
  }

  @Test
  @DisplayName(
      "closing a client ends its waits at once: a waiter with a 30 s backoff is told the client"
          + " closed")
  void closeEndsWaits() throws Exception {
    TimedStore store = store();
    EngineClient holder =
        new EngineClient(new MemLockStore(store.space(), ""), LockOptions.defaults());
    clients.add(holder);
    EngineClient a =
        client(
            store,
            LockOptions.builder().backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build());
    Lease held = holder.lock("job").tryAcquire().orElseThrow();
    int before = store.acquireCalls.get();
    CompletableFuture<Lease> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return a.lock("job").acquire(Duration.ofMinutes(1));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> store.acquireCalls.get() > before);
    long start = System.nanoTime();
    a.close();
    assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasMessageContaining("closed");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    held.release();
  }

  @Test
  @DisplayName(
      "extend() of a lease whose client was closed says the client was closed, not merely that"
          + " the lease was released")
  void extendAfterCloseNamesTheClose() {
    EngineClient a = client(store(), LockOptions.defaults());
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    Lease released = a.lock("other").tryAcquire().orElseThrow();
    released.release();
    assertThatThrownBy(() -> released.extend(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already released");
    a.close();
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("client was closed");
  }

  @Test
  @DisplayName(
      "a release that failed is asked again in the background for an owner of that hold alone,"
          + " and the lock frees once the store answers; a caller's own owner is not asked again")
  void failedReleaseIsAskedAgain() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    store.failingReleases.set(2);
    assertThatThrownBy(lease::release).isInstanceOf(dev.locksmith.LockStoreException.class);
    await().atMost(Duration.ofSeconds(5)).until(() -> !store.locked("job"));

    Lease named = a.lock("named").withOwner("job-17").tryAcquire().orElseThrow();
    store.failingReleases.set(1);
    assertThatThrownBy(named::release).isInstanceOf(dev.locksmith.LockStoreException.class);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.locked("named"));
  }

  @Test
  @DisplayName(
      "a key prefix in the options that differs from the store's is refused, naming both;"
          + " lockAll refuses a null array")
  void badOptionsAndNames() {
    TimedStore store = store();
    assertThatThrownBy(
            () -> new EngineClient(store, LockOptions.builder().keyPrefix("other").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix 'other'")
        .hasMessageContaining("key prefix ''");
    EngineClient a = client(store, LockOptions.defaults());
    assertThatThrownBy(() -> a.lockAll((String[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("names");
  }

  /** Makes the store's next acquire take the lock and then fail to answer, running {@code also}. */
  private static void loseNextAcquireReply(TimedStore store, Runnable also) {
    store.duringAcquire =
        () -> {
          store.duringAcquire = () -> {};
          also.run();
          throw new IllegalStateException("the reply was lost");
        };
  }

  private static void drainRenewalThread(EngineClient client) throws InterruptedException {
    java.util.concurrent.CountDownLatch drained = new java.util.concurrent.CountDownLatch(1);
    client.watchdog().execute(drained::countDown);
    assertThat(drained.await(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  @DisplayName(
      "an acquire whose outcome is unknown is undone for its own fresh owner: in the background"
          + " if the store failed, at once if the caller was interrupted, never for a caller's"
          + " own owner id")
  void unknownOutcomeIsUndone() throws Exception {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    LockKey key = new LockKey("job", LockMode.EXCLUSIVE);

    loseNextAcquireReply(store, () -> {});
    assertThatThrownBy(() -> a.lock("job").tryAcquire())
        .isInstanceOf(dev.locksmith.LockStoreException.class);
    drainRenewalThread(a);
    assertThat(store.read(key).locked()).as("held after a failed reply, once undone").isFalse();
    assertThat(store.releasedOn)
        .as("the thread that undid a failed acquire")
        .singleElement()
        .asString()
        .startsWith("locksmith-renewer-");

    store.releasedOn.clear();
    loseNextAcquireReply(store, () -> Thread.currentThread().interrupt());
    assertThatThrownBy(() -> a.lock("job").tryAcquire(Duration.ofSeconds(5)))
        .isInstanceOf(InterruptedException.class);
    assertThat(store.read(key).locked()).as("held right after an interrupted acquire").isFalse();
    assertThat(store.releasedOn)
        .as("the thread that undid an interrupted acquire")
        .containsExactly(Thread.currentThread().getName());

    Lease mine = a.lock("job").withOwner("worker-1").tryAcquire().orElseThrow();
    loseNextAcquireReply(store, () -> {});
    assertThatThrownBy(() -> a.lock("job").withOwner("worker-1").tryAcquire())
        .isInstanceOf(dev.locksmith.LockStoreException.class);
    drainRenewalThread(a);
    assertThat(store.read(key).holds()).as("the caller's own owner's holds").isEqualTo(2);
    assertThat(mine.isValid()).isTrue();
  }

  @Test
  @DisplayName(
      "a crashed client stops its timers and closes its store but leaves its holds to expire")
  void crashLeavesHolds() {
    TimedStore store = store();
    EngineClient a = client(store, LockOptions.defaults());
    a.lock("job").tryAcquire().orElseThrow();
    a.crash();
    assertThat(a.scheduledTimers()).isZero();
    assertThat(store.closed).isTrue();
    assertThat(
            new MemLockStore(store.space()).read(new LockKey("job", LockMode.EXCLUSIVE)).locked())
        .as("the crashed client's hold")
        .isTrue();
  }

  @Test
  @DisplayName(
      "on a store with a queue, lock() with an interrupt pending still queues and acquires, and"
          + " keeps the flag; a failed enqueue or leaving the queue releases the attempt's owner")
  void queueEdges() throws InterruptedException {
    TimedStore store = new TimedStore(StoreTiming.MILLISECONDS, MemLockStore.Waiters.QUEUE);
    EngineClient a = client(store, LockOptions.defaults());
    dev.locksmith.ThreadOwnedLock view = a.lock("job").asLock();
    Thread.currentThread().interrupt();
    try {
      view.lock();
      assertThat(Thread.currentThread().isInterrupted()).as("flag after lock()").isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(store.enqueued).hasValue(1);
    view.unlock();

    store.releasedOn.clear();
    store.enqueueFailure = () -> new IllegalStateException("queue unavailable");
    assertThatThrownBy(() -> a.lock("job").tryAcquire(Duration.ofSeconds(5)))
        .isInstanceOf(dev.locksmith.LockStoreException.class);
    assertThat(store.releasedOn).as("owners released after a failed enqueue").hasSize(1);
    store.enqueueFailure = null;

    Lease held = a.lock("job").tryAcquire().orElseThrow();
    store.releasedOn.clear();
    store.leaveQueueFailure = () -> new IllegalStateException("could not leave");
    assertThat(a.lock("job").tryAcquire(Duration.ofMillis(100))).isEmpty();
    assertThat(store.releasedOn).as("owners released after leaving the queue failed").hasSize(1);
    store.leaveQueueFailure = null;
    held.release();
  }
}
