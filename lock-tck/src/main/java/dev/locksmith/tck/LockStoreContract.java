package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.MultiLease;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every lock store must pass: extend it with one small class per store.
 *
 * <pre>{@code
 * class RedisLockContractTest extends LockStoreContract {
 *   protected LockClient newClient(LockOptions options) {
 *     return LockClient.open("redis://127.0.0.1:" + redis.port(), options);
 *   }
 * }
 * }</pre>
 *
 * <p>The {@code @Nested} groups check DESIGN.md's promises, one rule per test, each named by a
 * sentence ("Rule 2.3: ..."). A test that needs a capability the store does not declare is skipped
 * with a message naming the capability, and a matching rule checks that the feature is refused with
 * {@link UnsupportedCapabilityException}. Tests that need fault injection are skipped without
 * {@link #faults()}. Every test uses its own lock names and closes every client it made.
 */
public abstract class LockStoreContract {

  private final List<LockClient> clients = new CopyOnWriteArrayList<>();
  private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private String prefix = "tck-";

  /**
   * A new client with {@code options}: a separate connection, standing for a separate process. The
   * kit closes every client it creates.
   */
  protected abstract LockClient newClient(LockOptions options);

  /** A new client with default options. */
  protected LockClient newClient() {
    return newClient(LockOptions.defaults());
  }

  /**
   * A lease short enough for the expiry tests to run quickly and long enough for the store to hold
   * it reliably (at least a few store round trips, and a whole number of the store's granularity).
   * Default 600 ms; memcached, with whole-second expiry, overrides it. For {@link
   * Capability#SESSION_BOUND} stores it should be the session timeout.
   */
  protected Duration shortLease() {
    return Duration.ofMillis(600);
  }

  /**
   * How late the store may free an expired lock or wake a waiter beyond what it promised: the bound
   * in "within lease + bound". Default 1 s (these machines are small and noisy).
   */
  protected Duration timingSlack() {
    return Duration.ofSeconds(1);
  }

  /** The store's fault injector, if the fixture can pause, kill and restart it. */
  protected Optional<StoreFaults> faults() {
    return Optional.empty();
  }

  /**
   * The store's outside actor, if the fixture can change the store behind the clients' backs (an
   * operator deleting a lock); without it the outside-actor rules are skipped.
   */
  protected Optional<OutsideActor> outsideActor() {
    return Optional.empty();
  }

  /**
   * Makes {@code client} behave like a process that died while holding locks: no release, no
   * renewal, connection gone. The default works for every client made by {@code LockClient.open} or
   * {@code LockClient.of}.
   */
  protected void crash(LockClient client) {
    if (client instanceof EngineClient) {
      ((EngineClient) client).crash();
    } else {
      throw new IllegalStateException(
          "cannot crash a " + client.getClass().getName() + "; override crash(LockClient)");
    }
  }

  /**
   * The shortest lease and clock granularity of the store behind {@code client}. The default reads
   * them from the engine client's store; override it for clients the engine did not make.
   */
  protected StoreTiming storeTiming(LockClient client) {
    return EngineAccess.timing(client);
  }

  /**
   * The longest a store operation may block on a paused or dead store before it throws {@link
   * LockStoreException} (the store's command or connect timeout). Default 2 s; the store-failure
   * rules allow this plus {@link #timingSlack()}.
   */
  protected Duration storeTimeout() {
    return Duration.ofSeconds(2);
  }

  /** How long a client may take to reconnect by itself after the store is back. Default 10 s. */
  protected Duration recoveryTime() {
    return Duration.ofSeconds(10);
  }

  /** How many rounds each thread of the contention rules runs. Default 25. */
  protected int contentionRounds() {
    return 25;
  }

  // ---------------------------------------------------------------------------------------------
  // Fixture

  @BeforeEach
  void startKitTest() {
    prefix =
        "tck-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "-";
  }

  @AfterEach
  void finishKitTest() throws InterruptedException {
    for (Thread t : threads) {
      t.interrupt();
      t.join(5_000);
    }
    threads.clear();
    for (ExecutorService pool : pools) {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    pools.clear();
    for (LockClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // A client of a store that a test broke may fail to release; its leases expire.
      }
    }
    clients.clear();
  }

  /** A new client with default options, closed after the test. */
  protected final LockClient client() {
    return client(LockOptions.defaults());
  }

  /** A new client with {@code options}, closed after the test. */
  protected final LockClient client(LockOptions options) {
    LockClient c = newClient(options);
    clients.add(c);
    return c;
  }

  /** A lock name unique to the running test. */
  protected final String lockName(String suffix) {
    return prefix + suffix;
  }

  /** A pool of {@code n} threads, shut down after the test. */
  protected final ExecutorService pool(int n) {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    pools.add(pool);
    return pool;
  }

  private Thread thread(Runnable r) {
    Thread t = new Thread(r, "tck-" + threads.size());
    t.setDaemon(true);
    threads.add(t);
    t.start();
    return t;
  }

  /** The lease used by expiry rules: {@link #shortLease()}, raised to the store's minimum. */
  private Duration expiryLease(LockClient c) {
    StoreTiming timing = storeTiming(c);
    Duration lease = shortLease();
    if (lease.compareTo(timing.minimumLease()) < 0) {
      lease = timing.minimumLease();
    }
    long g = timing.granularity().toNanos();
    long n = lease.toNanos();
    return Duration.ofNanos((n + g - 1) / g * g);
  }

  private Duration slack() {
    return timingSlack();
  }

  private static void requireCapability(LockClient c, Capability capability) {
    assumeTrue(
        c.capabilities().contains(capability), "skipped: the store does not declare " + capability);
  }

  private static void requireLeaseExpiry(LockClient c) {
    assumeTrue(
        !c.capabilities().contains(Capability.SESSION_BOUND),
        "skipped: the store is SESSION_BOUND, so its holds end with the session, not at a lease"
            + " time");
  }

  private StoreFaults requireFaults() {
    Optional<StoreFaults> f = faults();
    assumeTrue(f.isPresent(), "skipped: no StoreFaults hook (override faults() to run it)");
    return f.get();
  }

  private static LockStore requireStore(LockClient c) {
    Optional<LockStore> store = EngineAccess.store(c);
    assumeTrue(
        store.isPresent(),
        "skipped: the client is not an EngineClient, so the kit cannot reach its store");
    return store.get();
  }

  private static EngineClient requireEngine(LockClient c) {
    assumeTrue(
        c instanceof EngineClient,
        "skipped: the client is not an EngineClient, so the kit cannot count its timers");
    return (EngineClient) c;
  }

  private static long tokenOf(LockClient c, Lease lease) {
    return c.capabilities().contains(Capability.FENCING)
        ? lease.fencingToken()
        : LockHistory.NO_TOKEN;
  }

  /** Waits until {@code lock} can be taken, within {@code atMost}, and returns the lease. */
  private static Lease awaitAcquired(DistributedLock lock, Duration atMost) {
    AtomicReference<Lease> got = new AtomicReference<>();
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              lock.tryAcquire().ifPresent(got::set);
              return got.get() != null;
            });
    return got.get();
  }

  private static <T> T within(Future<T> f, Duration d, String what) throws Exception {
    try {
      return f.get(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new AssertionError(what + " did not finish within " + d.toMillis() + " ms", e);
    }
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  // ---------------------------------------------------------------------------------------------
  // 1. Mutual exclusion

  /** Promise 1: while a lease is valid, no other owner holds a valid lease on that name. */
  @Nested
  @DisplayName("1. Mutual exclusion")
  public class MutualExclusion {

    @Test
    @DisplayName(
        "Rule 1.1: while one client holds a lock, another client's tryAcquire finds it taken")
    void otherClientFindsItTaken() {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow(() -> new AssertionError("free lock"));
      assertThat(b.lock(name).tryAcquire()).as("second client's tryAcquire").isEmpty();
      assertThat(b.lock(name).isLocked()).as("isLocked seen from the other client").isTrue();
      lease.release();
      Optional<Lease> next = b.lock(name).tryAcquire();
      assertThat(next).as("tryAcquire after the holder released").isPresent();
      next.get().release();
      assertThat(a.lock(name).isLocked()).as("isLocked after every release").isFalse();
    }

    @Test
    @DisplayName("Rule 1.2: two acquires from one client are two owners and exclude each other")
    void sameClientTwoOwners() {
      LockClient a = client();
      String name = lockName("x");
      Lease first = a.lock(name).tryAcquire().orElseThrow();
      assertThat(a.lock(name).tryAcquire()).as("second acquire from the same client").isEmpty();
      first.release();
    }

    @Test
    @DisplayName(
        "Rule 1.3: 8 threads on 3 clients incrementing an unguarded counter inside the lock lose no"
            + " update, and no two holds overlap")
    void contention() throws Exception {
      List<LockClient> cs = List.of(client(), client(), client());
      String name = lockName("counter");
      int threadCount = 8;
      int rounds = contentionRounds();
      LockHistory history = new LockHistory();
      int[] counter = {0}; // deliberately plain: only the lock protects it
      ExecutorService pool = pool(threadCount);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threadCount; t++) {
        LockClient c = cs.get(t % cs.size());
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int r = 0; r < rounds; r++) {
                    Lease lease = c.lock(name).acquire(Duration.ofSeconds(60));
                    LockHistory.Hold hold = history.acquired(name, tokenOf(c, lease));
                    int seen = counter[0];
                    Thread.sleep(1);
                    counter[0] = seen + 1;
                    hold.released();
                    lease.release();
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        within(f, Duration.ofSeconds(120), "a contending thread");
      }
      HistoryChecker.assertConsistent(history);
      assertThat(counter[0]).as("increments made under the lock").isEqualTo(threadCount * rounds);
    }

    @Test
    @DisplayName("Rule 1.4: locks with different names are independent")
    void namesAreIndependent() {
      LockClient a = client();
      LockClient b = client();
      Lease one = a.lock(lockName("one")).tryAcquire().orElseThrow();
      Optional<Lease> two = b.lock(lockName("two")).tryAcquire();
      assertThat(two).as("a lock of another name").isPresent();
      two.get().release();
      one.release();
    }

    @Test
    @DisplayName(
        "Rule 1.5: lock(name) and readWriteLock(name) are independent namespaces (READ_WRITE)")
    void exclusiveAndReadWriteAreIndependent() {
      LockClient a = client();
      requireCapability(a, Capability.READ_WRITE);
      LockClient b = client();
      String name = lockName("ns");
      Lease x = a.lock(name).tryAcquire().orElseThrow();
      Optional<Lease> w = b.readWriteLock(name).writeLock().tryAcquire();
      assertThat(w).as("write lock of a name whose exclusive lock is held").isPresent();
      assertThat(client().lock(name).tryAcquire()).as("exclusive lock still held").isEmpty();
      w.get().release();
      x.release();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Ownership

  /** Promise 2: only the holder can release or extend, also after expiry. */
  @Nested
  @DisplayName("2. Owner-checked release and extend")
  public class Ownership {

    @Test
    @DisplayName(
        "Rule 2.1: the store refuses a release by an owner that does not hold the lock (NOT_HELD),"
            + " and the lock stays held")
    void foreignReleaseRefused() {
      LockClient a = client();
      LockClient b = client();
      LockStore store = requireStore(b);
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      assertThat(store.release(LockKey.exclusive(name), "tck-intruder"))
          .as("release by an owner that does not hold the lock")
          .isEqualTo(ReleaseOutcome.NOT_HELD);
      assertThat(client().lock(name).tryAcquire()).as("the lock after a foreign release").isEmpty();
      lease.release(); // must not throw: the holder's hold is intact
    }

    @Test
    @DisplayName(
        "Rule 2.2: the store refuses an extend by an owner that does not hold the lock, and the"
            + " holder's lease is untouched")
    void foreignExtendRefused() {
      LockClient a = client();
      LockClient b = client();
      LockStore store = requireStore(b);
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      assertThat(store.extend(LockKey.exclusive(name), "tck-intruder", expiryLease(b)))
          .as("extend by an owner that does not hold the lock")
          .isFalse();
      assertThat(client().lock(name).tryAcquire()).as("the lock after a foreign extend").isEmpty();
      lease.release();
    }

    @Test
    @DisplayName(
        "Rule 2.3: after a lease expired and another owner took the lock, the old holder's release"
            + " throws LeaseLostException and does not free the new holder's lock")
    void releaseAfterExpiryKeepsNewHolder() {
      LockClient a = client();
      requireLeaseExpiry(a);
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
      Lease old = a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
      Lease taken = awaitAcquired(b.lock(name), lease.plus(slack()));
      assertThatThrownBy(old::release)
          .as("release of an expired lease")
          .isInstanceOf(LeaseLostException.class);
      assertThat(taken.isValid()).as("new holder's lease after the old release").isTrue();
      assertThat(client().lock(name).tryAcquire())
          .as("the lock after the old holder's late release")
          .isEmpty();
      taken.release(); // must not throw: the new holder's hold is intact
    }

    @Test
    @DisplayName(
        "Rule 2.4: in the store, a release or extend by an owner whose hold expired and passed to"
            + " another owner is refused, and the new hold is intact")
    void storeRefusesExpiredOwner() {
      LockClient a = client();
      requireLeaseExpiry(a);
      LockClient b = client();
      LockStore storeA = requireStore(a);
      LockStore storeB = requireStore(b);
      LockKey key = LockKey.exclusive(lockName("x"));
      Duration lease = expiryLease(a);
      assertThat(storeA.tryAcquire(key, "tck-old-owner", lease).isAcquired()).isTrue();
      await()
          .atMost(lease.plus(slack()))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> storeB.tryAcquire(key, "tck-new-owner", Duration.ofSeconds(30)).isAcquired());
      assertThat(storeA.release(key, "tck-old-owner"))
          .as("release by the owner whose hold expired")
          .isEqualTo(ReleaseOutcome.NOT_HELD);
      assertThat(storeA.extend(key, "tck-old-owner", lease))
          .as("extend by the owner whose hold expired")
          .isFalse();
      assertThat(storeB.read(key).locked()).as("the new owner's hold").isTrue();
      assertThat(client().lock(key.name()).tryAcquire()).as("the lock").isEmpty();
      assertThat(storeB.release(key, "tck-new-owner")).isEqualTo(ReleaseOutcome.RELEASED);
    }

    @Test
    @DisplayName(
        "Rule 2.5: after a lease expired, the old holder's extend throws LeaseLostException and"
            + " the new holder keeps the lock")
    void extendAfterExpiryRefused() {
      LockClient a = client();
      requireLeaseExpiry(a);
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
      Lease old = a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
      Lease taken = awaitAcquired(b.lock(name), lease.plus(slack()));
      assertThatThrownBy(() -> old.extend(lease))
          .as("extend of an expired lease")
          .isInstanceOf(LeaseLostException.class);
      assertThat(client().lock(name).tryAcquire()).as("the lock").isEmpty();
      taken.release();
    }

    @Test
    @DisplayName("Rule 2.6: releasing a lease twice is a no-op the second time")
    void doubleReleaseIsNoOp() {
      LockClient a = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      lease.release();
      lease.release();
      lease.close();
      assertThat(lease.isValid()).isFalse();
      Lease again = client().lock(name).tryAcquire().orElseThrow();
      lease.release();
      assertThat(client().lock(name).tryAcquire()).as("lock held by the next owner").isEmpty();
      again.release();
    }

    @Test
    @DisplayName("Rule 2.7: a lease can be released from another thread than the one that took it")
    void releaseFromAnotherThread() throws Exception {
      LockClient a = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      within(pool(1).submit(lease::release), Duration.ofSeconds(10), "release on another thread");
      assertThat(client().lock(name).tryAcquire()).as("the lock after release").isPresent();
    }

    @Test
    @DisplayName("Rule 2.8: closing a client releases the leases it holds at once")
    void closeReleases() {
      LockClient a = newClient();
      String name = lockName("x");
      try {
        Lease lease = a.lock(name).tryAcquire().orElseThrow();
        a.close();
        assertThat(lease.isValid()).as("lease after its client closed").isFalse();
      } finally {
        a.close();
      }
      assertThat(client().lock(name).tryAcquire())
          .as("the lock right after its holder's client closed")
          .isPresent();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 3. Expiry: no deadlock

  /** Promise 3: a holder that dies frees the lock; a lease ends at its expiry unless extended. */
  @Nested
  @DisplayName("3. Expiry and no deadlock")
  public class Expiry {

    @Test
    @DisplayName(
        "Rule 3.1: a crashed holder (no release, no renewal) frees the lock within its lease plus"
            + " the timing slack (SESSION_BOUND stores: when its session ends)")
    void crashedHolderFreesLock() {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
      a.lock(name).withLeaseTime(lease).tryAcquire().orElseThrow();
      crash(a);
      long crashed = System.nanoTime();
      assertThat(b.lock(name).tryAcquire()).as("the lock right after the crash").isEmpty();
      Lease next = awaitAcquired(b.lock(name), lease.plus(slack()));
      next.release();
      assertThat(millisSince(crashed)).isLessThanOrEqualTo(lease.plus(slack()).toMillis());
    }

    @Test
    @DisplayName(
        "Rule 3.2: a lease without auto-renew that runs out is lost: onLost fires once, isValid"
            + " turns false, and release throws LeaseLostException")
    void expiryWithoutRenewalIsLoss() {
      LockClient a = client();
      requireLeaseExpiry(a);
      Duration lease = expiryLease(a);
      AtomicInteger told = new AtomicInteger();
      Lease held =
          a.lock(lockName("x"))
              .withLeaseTime(lease)
              .withAutoRenew(false)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> told.incrementAndGet());
      assertThat(held.isValid()).isTrue();
      await()
          .atMost(lease.plus(slack()))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> told.get() > 0);
      assertThat(held.isValid()).as("isValid after loss").isFalse();
      assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
      assertThat(told.get()).as("times onLost was told").isEqualTo(1);
    }

    @Test
    @DisplayName(
        "Rule 3.3: once a lease ran out, another client acquires the lock within the timing slack")
    void expiredLockIsTakenOver() {
      LockClient a = client();
      requireLeaseExpiry(a);
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
      long start = System.nanoTime();
      a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
      assertThat(b.lock(name).tryAcquire()).as("before expiry").isEmpty();
      Lease next = awaitAcquired(b.lock(name), lease.plus(slack()));
      assertThat(millisSince(start)).isLessThanOrEqualTo(lease.plus(slack()).toMillis());
      next.release();
    }

    @Test
    @DisplayName(
        "Rule 3.4: expiresAt() is at most acquire start plus the lease time (Instant.MAX exactly"
            + " for SESSION_BOUND stores)")
    void expiresAtIsConservative() {
      LockClient a = client();
      Duration lease = expiryLease(a);
      Instant before = Instant.now();
      Lease held = a.lock(lockName("x")).withLeaseTime(lease).tryAcquire().orElseThrow();
      Instant after = Instant.now();
      if (a.capabilities().contains(Capability.SESSION_BOUND)) {
        assertThat(held.expiresAt()).isEqualTo(Instant.MAX);
      } else {
        assertThat(held.expiresAt())
            .isBefore(after.plus(lease).plusMillis(1))
            .isAfter(before.plus(lease).minus(slack()));
      }
      held.release();
    }

    @Test
    @DisplayName("Rule 3.5: a lease time below the store's minimum lease is refused")
    void leaseBelowMinimumRefused() {
      LockClient a = client();
      Duration min = storeTiming(a).minimumLease();
      Duration tooShort = min.minusNanos(1);
      assumeTrue(!tooShort.isZero(), "skipped: the store's minimum lease is 1 ns");
      assertThatThrownBy(() -> a.lock(lockName("x")).withLeaseTime(tooShort))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("leaseTime");
    }

    @Test
    @DisplayName(
        "Rule 3.6: extend() on a lease without auto-renew keeps the lock past its first expiry")
    void extendPushesExpiry() throws Exception {
      LockClient a = client();
      requireLeaseExpiry(a);
      String name = lockName("x");
      Duration lease = expiryLease(a);
      Lease held =
          a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
      long start = System.nanoTime();
      held.extend(lease.multipliedBy(4));
      Thread.sleep(lease.toMillis() + lease.toMillis() / 2);
      assertThat(millisSince(start)).isLessThan(lease.multipliedBy(4).toMillis());
      assertThat(held.isValid()).as("extended lease past its first expiry").isTrue();
      assertThat(client().lock(name).tryAcquire()).as("the lock past its first expiry").isEmpty();
      held.release();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 4. Renewal

  /** Promise 4: the watchdog renews; a failed renewal is reported, never hidden. */
  @Nested
  @DisplayName("4. Leases and renewal")
  public class Renewal {

    @Test
    @DisplayName(
        "Rule 4.1: auto-renew keeps a lock through three lease lengths and no one else can take"
            + " it meanwhile")
    void renewalKeepsLock() throws Exception {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
      AtomicInteger lost = new AtomicInteger();
      Lease held =
          a.lock(name)
              .withLeaseTime(lease)
              .withAutoRenew(true)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> lost.incrementAndGet());
      long end = System.nanoTime() + lease.multipliedBy(3).plus(lease.dividedBy(2)).toNanos();
      while (System.nanoTime() - end < 0) {
        assertThat(b.lock(name).tryAcquire()).as("another client while renewed").isEmpty();
        assertThat(held.isValid()).as("renewed lease").isTrue();
        Thread.sleep(Math.max(10, lease.toMillis() / 6));
      }
      assertThat(lost.get()).as("onLost calls while renewed").isZero();
      held.release();
    }

    @Test
    @DisplayName(
        "Rule 4.2: a renewal that keeps failing until the lease runs out (store paused) marks the"
            + " lease lost and fires onLost")
    void failedRenewalFiresOnLost() {
      StoreFaults faults = requireFaults();
      LockClient a = client();
      Duration lease = expiryLease(a);
      AtomicInteger lost = new AtomicInteger();
      Lease held =
          a.lock(lockName("x"))
              .withLeaseTime(lease)
              .withAutoRenew(true)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> lost.incrementAndGet());
      faults.pause();
      try {
        await()
            .atMost(lease.plus(storeTimeout()).plus(slack()))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> lost.get() > 0);
        assertThat(held.isValid()).isFalse();
      } finally {
        faults.resume();
      }
      assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
      assertThat(lost.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("Rule 4.3: a listener registered after the loss is told at once")
    void lateListenerToldAtOnce() {
      LockClient a = client();
      requireLeaseExpiry(a);
      Duration lease = expiryLease(a);
      Lease held =
          a.lock(lockName("x"))
              .withLeaseTime(lease)
              .withAutoRenew(false)
              .tryAcquire()
              .orElseThrow();
      await()
          .atMost(lease.plus(slack()))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> !held.isValid());
      // The expiry timer may lag isValid(); wait until the loss is recorded, then register.
      AtomicInteger first = new AtomicInteger();
      held.onLost((l, why) -> first.incrementAndGet());
      await().atMost(slack()).until(() -> first.get() == 1);
      AtomicInteger late = new AtomicInteger();
      held.onLost((l, why) -> late.incrementAndGet());
      assertThat(late.get()).as("calls to a listener registered after the loss").isEqualTo(1);
    }

    @Test
    @DisplayName(
        "Rule 4.5: a hold deleted in the store by an outside actor is reported to its holder:"
            + " onLost fires and isValid() turns false within one renewal interval plus the slack"
            + " (within the slack where the store pushes, SESSION_BOUND)")
    void outsideDeletionIsReported() {
      Optional<OutsideActor> actor = outsideActor();
      assumeTrue(actor.isPresent(), "skipped: no OutsideActor hook (override outsideActor())");
      LockClient a = client();
      String name = lockName("x");
      Duration lease = expiryLease(a).multipliedBy(3);
      boolean pushes = a.capabilities().contains(Capability.SESSION_BOUND);
      Duration bound = pushes ? slack() : lease.dividedBy(3).plus(slack());
      AtomicInteger lost = new AtomicInteger();
      Lease held =
          a.lock(name)
              .withLeaseTime(lease)
              .withAutoRenew(true)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> lost.incrementAndGet());
      actor.get().deleteHolds(name, LockMode.EXCLUSIVE);
      long deleted = System.nanoTime();
      await().atMost(bound).pollInterval(Duration.ofMillis(10)).until(() -> lost.get() > 0);
      assertThat(held.isValid()).as("the lease once its hold was deleted").isFalse();
      assertThat(millisSince(deleted)).isLessThanOrEqualTo(bound.toMillis());
      assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
      assertThat(lost.get()).as("times onLost was told").isEqualTo(1);
    }

    @Test
    @DisplayName("Rule 4.4: a released lease leaves no renewal or expiry timer behind")
    void releaseStopsTimers() {
      LockClient a = client();
      EngineClient engine = requireEngine(a);
      List<Lease> leases = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        leases.add(
            a.lock(lockName("x" + i))
                .withLeaseTime(Duration.ofSeconds(30))
                .tryAcquire()
                .orElseThrow());
      }
      assertThat(engine.activeLeases()).isEqualTo(5);
      leases.forEach(Lease::release);
      assertThat(engine.activeLeases()).as("leases tracked after release").isZero();
      await().atMost(slack()).until(() -> engine.scheduledTimers() == 0);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 5. Fencing

  /** Promise 5: fencing tokens strictly increase across holders. */
  @Nested
  @DisplayName("5. Fencing")
  public class Fencing {

    @Test
    @DisplayName(
        "Rule 5.1: fencing tokens strictly increase across successive holders on different clients"
            + " (FENCING)")
    void tokensIncrease() {
      LockClient a = client();
      requireCapability(a, Capability.FENCING);
      LockClient b = client();
      String name = lockName("x");
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
    @DisplayName(
        "Rule 5.2: a holder that took over an expired lock gets a greater token than the expired"
            + " holder (FENCING)")
    void takeoverTokenIsGreater() {
      LockClient a = client();
      requireCapability(a, Capability.FENCING);
      requireLeaseExpiry(a);
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
      Lease old = a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire().orElseThrow();
      Lease next = awaitAcquired(b.lock(name), lease.plus(slack()));
      assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
      next.release();
    }

    @Test
    @DisplayName(
        "Rule 5.3: a nested hold of the same owner has its first hold's token (FENCING,"
            + " REENTRANCY)")
    void nestedHoldSharesToken() {
      LockClient a = client();
      requireCapability(a, Capability.FENCING);
      requireCapability(a, Capability.REENTRANCY);
      DistributedLock lock = a.lock(lockName("x")).withOwner("tck-owner");
      Lease first = lock.tryAcquire().orElseThrow();
      Lease second = lock.tryAcquire().orElseThrow();
      assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
      second.release();
      first.release();
    }

    @Test
    @DisplayName(
        "Rule 5.4: fencing tokens keep increasing across a kill and restart of the store"
            + " (DURABLE_FENCING)")
    void tokensSurviveRestart() {
      LockClient a = client();
      requireCapability(a, Capability.DURABLE_FENCING);
      StoreFaults faults = requireFaults();
      String name = lockName("x");
      Lease before = a.lock(name).tryAcquire().orElseThrow();
      long token = before.fencingToken();
      before.release();
      faults.kill();
      faults.restart();
      LockClient b = client();
      AtomicReference<Lease> after = new AtomicReference<>();
      await()
          .atMost(recoveryTime())
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
    @DisplayName(
        "Rule 5.5: fencingToken() is refused with UnsupportedCapabilityException exactly when the"
            + " store does not declare FENCING")
    void fencingDeclaredTruthfully() {
      LockClient a = client();
      Lease lease = a.lock(lockName("x")).tryAcquire().orElseThrow();
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
    @DisplayName("Rule 5.6: DURABLE_FENCING is declared only together with FENCING")
    void durableImpliesFencing() {
      LockClient a = client();
      if (a.capabilities().contains(Capability.DURABLE_FENCING)) {
        assertThat(a.capabilities()).contains(Capability.FENCING);
      } else {
        assertThat(a.capabilities()).doesNotContain(Capability.DURABLE_FENCING);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 6. Reentrancy

  /** Promise 6: the same owner gets nested holds; the thread view is reentrant per thread. */
  @Nested
  @DisplayName("6. Reentrancy")
  public class Reentrancy {

    @Test
    @DisplayName(
        "Rule 6.1: the same owner acquiring again gets a nested hold, and the lock frees only when"
            + " every hold is released (REENTRANCY)")
    void nestedHolds() {
      LockClient a = client();
      requireCapability(a, Capability.REENTRANCY);
      String name = lockName("x");
      DistributedLock lock = a.lock(name).withOwner("tck-owner");
      Lease first = lock.tryAcquire().orElseThrow();
      Lease second = lock.tryAcquire().orElseThrow();
      Lease third = lock.tryAcquire().orElseThrow();
      LockClient other = client();
      third.release();
      second.release();
      assertThat(other.lock(name).tryAcquire()).as("with one hold left").isEmpty();
      first.release();
      Optional<Lease> next = other.lock(name).tryAcquire();
      assertThat(next).as("after every hold was released").isPresent();
      next.get().release();
    }

    @Test
    @DisplayName(
        "Rule 6.2: one owner on two clients shares its holds, and different owners never do"
            + " (REENTRANCY)")
    void ownerAcrossClients() {
      LockClient a = client();
      requireCapability(a, Capability.REENTRANCY);
      LockClient b = client();
      String name = lockName("x");
      Lease first = a.lock(name).withOwner("tck-owner").tryAcquire().orElseThrow();
      assertThat(b.lock(name).withOwner("tck-other").tryAcquire()).as("another owner").isEmpty();
      Lease second = b.lock(name).withOwner("tck-owner").tryAcquire().orElseThrow();
      first.release();
      assertThat(client().lock(name).tryAcquire()).as("with one hold left").isEmpty();
      second.release();
      assertThat(client().lock(name).tryAcquire()).as("after both holds").isPresent();
    }

    @Test
    @DisplayName(
        "Rule 6.3: withOwner is refused with UnsupportedCapabilityException exactly when the store"
            + " does not declare REENTRANCY")
    void reentrancyDeclaredTruthfully() {
      LockClient a = client();
      DistributedLock lock = a.lock(lockName("x"));
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
    @DisplayName(
        "Rule 6.4: the asLock() view is reentrant per thread: getHoldCount counts, and the lock"
            + " frees at the last unlock")
    void threadViewCounts() {
      LockClient a = client();
      String name = lockName("x");
      ThreadOwnedLock view = a.lock(name).asLock();
      assertThat(view.getHoldCount()).isZero();
      view.lock();
      assertThat(view.tryLock()).isTrue();
      assertThat(view.getHoldCount()).isEqualTo(2);
      assertThat(view.isHeldByCurrentThread()).isTrue();
      assertThat(a.lock(name).asLock().getHoldCount()).as("another view of the name").isEqualTo(2);
      LockClient other = client();
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
    @DisplayName(
        "Rule 6.5: asLock() excludes other threads of the same client, and unlock() by a thread"
            + " that does not hold it throws IllegalMonitorStateException")
    void threadViewIsThreadOwned() throws Exception {
      LockClient a = client();
      ThreadOwnedLock view = a.lock(lockName("x")).asLock();
      assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class);
      view.lock();
      ExecutorService pool = pool(1);
      assertThat(within(pool.submit(() -> view.tryLock()), Duration.ofSeconds(10), "tryLock"))
          .as("tryLock on another thread")
          .isFalse();
      Future<?> foreignUnlock = pool.submit(view::unlock);
      assertThatThrownBy(() -> foreignUnlock.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(IllegalMonitorStateException.class);
      assertThat(view.getHoldCount()).as("hold after a foreign unlock").isEqualTo(1);
      view.unlock();
    }

    @Test
    @DisplayName("Rule 6.6: asLock().newCondition() is refused")
    void noConditions() {
      ThreadOwnedLock view = client().lock(lockName("x")).asLock();
      assertThatThrownBy(view::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 7. Waiting

  /** Promise 7: bounded, interruptible waiting that leaves nothing behind. */
  @Nested
  @DisplayName("7. Waiting")
  public class Waiting {

    @Test
    @DisplayName(
        "Rule 7.1: tryAcquire() on a held lock never blocks (each call well under the slack)")
    void tryAcquireNeverBlocks() {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      DistributedLock contender = b.lock(name);
      contender.tryAcquire(); // warm the connection
      long worst = 0;
      for (int i = 0; i < 20; i++) {
        long start = System.nanoTime();
        assertThat(contender.tryAcquire()).isEmpty();
        worst = Math.max(worst, System.nanoTime() - start);
      }
      assertThat(Duration.ofNanos(worst)).isLessThan(slack().dividedBy(2));
      lease.release();
    }

    @Test
    @DisplayName(
        "Rule 7.2: acquire(timeout) on a held lock throws LockTimeoutException no sooner than the"
            + " timeout and within timeout plus the slack; tryAcquire(wait) returns empty")
    void timeoutIsBounded() throws Exception {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      Duration timeout = Duration.ofMillis(400);
      long start = System.nanoTime();
      assertThatThrownBy(() -> b.lock(name).acquire(timeout))
          .isInstanceOf(LockTimeoutException.class);
      long waited = millisSince(start);
      assertThat(waited).isBetween(timeout.toMillis(), timeout.plus(slack()).toMillis());
      start = System.nanoTime();
      assertThat(b.lock(name).tryAcquire(timeout)).isEmpty();
      assertThat(millisSince(start))
          .isBetween(timeout.toMillis(), timeout.plus(slack()).toMillis());
      lease.release();
    }

    @Test
    @DisplayName("Rule 7.3: a waiter wakes within the slack after the holder releases")
    void waiterWakesOnRelease() throws Exception {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      AtomicBoolean waiting = new AtomicBoolean();
      Future<Long> woke =
          pool(1)
              .submit(
                  () -> {
                    waiting.set(true);
                    Lease l = b.lock(name).acquire(Duration.ofSeconds(60));
                    long at = System.nanoTime();
                    l.release();
                    return at;
                  });
      await().until(waiting::get);
      Thread.sleep(300); // let the waiter settle into its wait (push or backoff)
      long released = System.nanoTime();
      lease.release();
      long at = within(woke, Duration.ofSeconds(30), "the waiter");
      assertThat(Duration.ofNanos(at - released)).isLessThan(slack());
    }

    @Test
    @DisplayName(
        "Rule 7.4: an interrupted acquire throws InterruptedException and leaves no orphan hold,"
            + " lease or renewal timer behind")
    void interruptLeavesNothing() throws Exception {
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      CompletableFuture<Object> outcome = new CompletableFuture<>();
      Thread waiter = thread(() -> outcome.complete(acquireOutcome(b.lock(name))));
      Thread.sleep(300); // the rule holds wherever the interrupt lands; this lands it in the wait
      waiter.interrupt();
      Object result = outcome.get(slack().plus(storeTimeout()).toMillis(), TimeUnit.MILLISECONDS);
      assertThat(result).isInstanceOf(InterruptedException.class);
      lease.release();
      Optional<Lease> next = client().lock(name).tryAcquire();
      assertThat(next).as("the lock right after the holder released").isPresent();
      next.get().release();
      if (b instanceof EngineClient) {
        EngineClient engine = (EngineClient) b;
        assertThat(engine.activeLeases()).as("leases of the interrupted client").isZero();
        await().atMost(slack()).until(() -> engine.scheduledTimers() == 0);
      }
    }

    @Test
    @DisplayName(
        "Rule 7.5: an acquire interrupted just as the lock is released either holds a lease or"
            + " leaves the lock free, over many rounds")
    void interruptRacingReleaseLeavesNothing() throws Exception {
      LockClient a = client();
      LockClient b = client();
      LockClient c = client();
      String name = lockName("x");
      for (int round = 0; round < 10; round++) {
        Lease lease = a.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        Thread waiter = thread(() -> outcome.complete(acquireOutcome(b.lock(name))));
        Thread.sleep(20 + round * 5);
        lease.release();
        waiter.interrupt();
        Object result = outcome.get(slack().plus(storeTimeout()).toMillis(), TimeUnit.MILLISECONDS);
        if (result instanceof Lease) {
          ((Lease) result).release();
        } else {
          assertThat(result).isInstanceOf(InterruptedException.class);
        }
        // A store call cut short by the interrupt is undone by the engine, possibly in the
        // background: the lock must be free within the slack, not necessarily at once.
        Optional<Lease> free = c.lock(name).tryAcquire(slack());
        assertThat(free).as("the lock after round %d", round).isPresent();
        free.get().release();
      }
    }

    private Object acquireOutcome(DistributedLock lock) {
      try {
        return lock.acquire(Duration.ofSeconds(60));
      } catch (Throwable t) {
        return t;
      }
    }

    @Test
    @DisplayName(
        "Rule 7.6: an acquire on an already interrupted thread fails at once, holding nothing")
    void interruptedBeforeAcquire() {
      LockClient a = client();
      String name = lockName("x");
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(() -> a.lock(name).acquire(Duration.ofSeconds(5)))
            .isInstanceOf(InterruptedException.class);
      } finally {
        Thread.interrupted();
      }
      assertThat(client().lock(name).tryAcquire()).isPresent();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 8. Read-write

  /** Promise 8: many readers or one writer; writers are not starved. */
  @Nested
  @DisplayName("8. Read-write locks")
  public class ReadWrite {

    private DistributedReadWriteLock rw(LockClient c, String name) {
      return c.readWriteLock(name);
    }

    @Test
    @DisplayName("Rule 8.1: readers on different clients hold the read lock at once (READ_WRITE)")
    void readersShare() {
      LockClient a = client();
      requireCapability(a, Capability.READ_WRITE);
      String name = lockName("rw");
      List<Lease> reads = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        reads.add(rw(i == 0 ? a : client(), name).readLock().tryAcquire().orElseThrow());
      }
      assertThat(reads).allMatch(Lease::isValid);
      reads.forEach(Lease::release);
    }

    @Test
    @DisplayName(
        "Rule 8.2: a writer excludes readers and other writers, and readers exclude writers until"
            + " the last reader releases (READ_WRITE)")
    void writerIsExclusive() {
      LockClient a = client();
      requireCapability(a, Capability.READ_WRITE);
      LockClient b = client();
      LockClient c = client();
      String name = lockName("rw");
      Lease r1 = rw(a, name).readLock().tryAcquire().orElseThrow();
      Lease r2 = rw(b, name).readLock().tryAcquire().orElseThrow();
      assertThat(rw(c, name).writeLock().tryAcquire()).as("writer while read").isEmpty();
      r1.release();
      assertThat(rw(c, name).writeLock().tryAcquire()).as("writer with one reader").isEmpty();
      r2.release();
      Lease w = rw(c, name).writeLock().tryAcquire().orElseThrow();
      assertThat(rw(b, name).readLock().tryAcquire()).as("reader while written").isEmpty();
      assertThat(rw(b, name).writeLock().tryAcquire()).as("writer while written").isEmpty();
      assertThat(rw(a, name).readLock().tryAcquire()).as("reader while written").isEmpty();
      w.release();
    }

    @Test
    @DisplayName(
        "Rule 8.7: a write tryAcquire() that finds the lock taken leaves no waiting-writer mark:"
            + " once the holder releases, new readers get in at once (READ_WRITE)")
    void failedWriteTryAcquireLeavesNoMark() {
      LockClient a = client();
      requireCapability(a, Capability.READ_WRITE);
      LockClient b = client();
      LockClient c = client();
      String name = lockName("rw");
      Lease r1 = rw(a, name).readLock().tryAcquire().orElseThrow();
      assertThat(rw(b, name).writeLock().tryAcquire()).as("writer while read").isEmpty();
      r1.release();
      Optional<Lease> r2 = rw(c, name).readLock().tryAcquire();
      assertThat(r2)
          .as(
              "a new reader after a non-waiting writer gave up: tryAcquire() never waits, so it"
                  + " must not leave a waiting-writer mark behind (the engine withdraws it only"
                  + " after waiting: EngineLock.poll)")
          .isPresent();
      r2.get().release();
    }

    @Test
    @DisplayName(
        "Rule 8.3: a writer waiting behind a stream of overlapping readers gets the lock within a"
            + " bound (no writer starvation) (READ_WRITE)")
    void writerNotStarved() throws Exception {
      LockClient w = client();
      requireCapability(w, Capability.READ_WRITE);
      String name = lockName("rw");
      LockHistory history = new LockHistory();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger reading = new AtomicInteger();
      int readers = 3;
      ExecutorService pool = pool(readers);
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < readers; i++) {
        LockClient c = client();
        int offset = i;
        futures.add(
            pool.submit(
                () -> {
                  Thread.sleep(offset * 50L);
                  while (!stop.get()) {
                    Optional<Lease> r = rw(c, name).readLock().tryAcquire(Duration.ofMillis(200));
                    if (r.isEmpty()) {
                      continue;
                    }
                    LockHistory.Hold h = history.acquired(name, true, LockHistory.NO_TOKEN);
                    reading.incrementAndGet();
                    Thread.sleep(150);
                    reading.decrementAndGet();
                    h.released();
                    r.get().release();
                  }
                  return null;
                }));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> reading.get() > 0);
      Duration bound = Duration.ofMillis(150).plus(slack().multipliedBy(3));
      long start = System.nanoTime();
      Optional<Lease> write;
      try {
        write = rw(w, name).writeLock().tryAcquire(bound);
        write.ifPresent(
            l -> {
              LockHistory.Hold h = history.acquired(name, false, LockHistory.NO_TOKEN);
              h.released();
            });
      } finally {
        stop.set(true);
      }
      for (Future<?> f : futures) {
        within(f, Duration.ofSeconds(30), "a reader");
      }
      assertThat(write)
          .as("write lock after %d ms behind a stream of readers", millisSince(start))
          .isPresent();
      write.get().release();
      HistoryChecker.assertConsistent(history);
    }

    @Test
    @DisplayName(
        "Rule 8.4: a writer that gave up waiting does not keep new readers out (READ_WRITE)")
    void withdrawnWriterLetsReadersIn() throws Exception {
      LockClient a = client();
      requireCapability(a, Capability.READ_WRITE);
      LockClient b = client();
      LockClient c = client();
      String name = lockName("rw");
      Lease r1 = rw(a, name).readLock().tryAcquire().orElseThrow();
      assertThat(rw(b, name).writeLock().tryAcquire(Duration.ofMillis(300)))
          .as("writer behind a reader")
          .isEmpty();
      Optional<Lease> r2 = rw(c, name).readLock().tryAcquire();
      assertThat(r2).as("new reader after the writer gave up").isPresent();
      r2.get().release();
      r1.release();
    }

    @Test
    @DisplayName(
        "Rule 8.5: readWriteLock is refused with UnsupportedCapabilityException exactly when the"
            + " store does not declare READ_WRITE")
    void readWriteDeclaredTruthfully() {
      LockClient a = client();
      String name = lockName("rw");
      if (a.capabilities().contains(Capability.READ_WRITE)) {
        assertThat(a.readWriteLock(name).name()).isEqualTo(name);
      } else {
        assertThatThrownBy(() -> a.readWriteLock(name))
            .isInstanceOfSatisfying(
                UnsupportedCapabilityException.class,
                e -> assertThat(e.capability()).isEqualTo(Capability.READ_WRITE));
      }
    }

    @Test
    @DisplayName(
        "Rule 8.6: 2 writers and 4 readers on 3 clients never overlap a writer with anyone"
            + " (history checker) (READ_WRITE)")
    void mixedContention() throws Exception {
      LockClient first = client();
      requireCapability(first, Capability.READ_WRITE);
      List<LockClient> cs = List.of(first, client(), client());
      String name = lockName("rw");
      LockHistory history = new LockHistory();
      ExecutorService pool = pool(6);
      List<Future<?>> futures = new ArrayList<>();
      int rounds = Math.max(5, contentionRounds() / 2);
      for (int t = 0; t < 6; t++) {
        LockClient c = cs.get(t % cs.size());
        boolean writer = t < 2;
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    DistributedReadWriteLock lock = rw(c, name);
                    Lease l =
                        (writer ? lock.writeLock() : lock.readLock())
                            .acquire(Duration.ofSeconds(60));
                    long token = writer ? tokenOf(c, l) : LockHistory.NO_TOKEN;
                    LockHistory.Hold h = history.acquired(name, !writer, token);
                    Thread.sleep(2);
                    h.released();
                    l.release();
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        within(f, Duration.ofSeconds(120), "a reader or writer");
      }
      HistoryChecker.assertConsistent(history);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 9. Multi-lock

  /** lockAll: one canonical order, all or nothing. */
  @Nested
  @DisplayName("9. Multi-lock")
  public class MultiLock {

    @Test
    @DisplayName(
        "Rule 9.1: lockAll in opposite orders from two clients never deadlocks over many rounds,"
            + " and no two holds overlap")
    void oppositeOrdersNeverDeadlock() throws Exception {
      LockClient a = client();
      LockClient b = client();
      List<String> names = List.of(lockName("a"), lockName("b"), lockName("c"));
      List<String> reversed = List.of(names.get(2), names.get(1), names.get(0));
      LockHistory history = new LockHistory();
      ExecutorService pool = pool(2);
      int rounds = Math.max(10, contentionRounds());
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        LockClient c = t == 0 ? a : b;
        List<String> order = t == 0 ? names : reversed;
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    MultiLease all = c.lockAll(order).acquire(Duration.ofSeconds(30));
                    List<LockHistory.Hold> holds = new ArrayList<>();
                    for (Lease l : all.leases()) {
                      holds.add(history.acquired(l.name(), tokenOf(c, l)));
                    }
                    Thread.sleep(1);
                    holds.forEach(LockHistory.Hold::released);
                    all.release();
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        within(f, Duration.ofSeconds(90), "a lockAll loop (deadlock?)");
      }
      HistoryChecker.assertConsistent(history);
    }

    @Test
    @DisplayName(
        "Rule 9.2: lockAll is all or nothing: when one lock is taken, tryAcquire and"
            + " acquire(timeout) hold none of them")
    void allOrNothing() throws Exception {
      LockClient a = client();
      LockClient b = client();
      LockClient c = client();
      String n1 = lockName("a");
      String n2 = lockName("b");
      String n3 = lockName("c");
      Lease middle = b.lock(n2).tryAcquire().orElseThrow();
      assertThat(a.lockAll(n1, n2, n3).tryAcquire()).isEmpty();
      assertThatThrownBy(() -> a.lockAll(n3, n2, n1).acquire(Duration.ofMillis(300)))
          .isInstanceOf(LockTimeoutException.class);
      for (String n : List.of(n1, n3)) {
        Optional<Lease> free = c.lock(n).tryAcquire();
        assertThat(free).as("lock %s after a failed lockAll", n).isPresent();
        free.get().release();
      }
      middle.release();
      MultiLease all = a.lockAll(n1, n2, n3).tryAcquire().orElseThrow();
      assertThat(all.leases()).hasSize(3);
      assertThat(all.isValid()).isTrue();
      for (String n : List.of(n1, n2, n3)) {
        assertThat(c.lock(n).tryAcquire()).as("lock %s while held by lockAll", n).isEmpty();
      }
      all.release();
      for (String n : List.of(n1, n2, n3)) {
        Optional<Lease> free = c.lock(n).tryAcquire();
        assertThat(free).as("lock %s after the multi-lease was released", n).isPresent();
        free.get().release();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 10. Bad input

  static Stream<Arguments> badNames() {
    return Stream.of(
        Arguments.of("empty", ""),
        Arguments.of("blank", "   "),
        Arguments.of("a tab only", "\t"),
        Arguments.of("257 ASCII bytes", "a".repeat(257)),
        Arguments.of("257 UTF-8 bytes of multibyte text", "€".repeat(85) + "é"),
        Arguments.of("65 four-byte emoji (260 bytes)", "🔒".repeat(65)),
        Arguments.of("a newline", "a\nb"),
        Arguments.of("a carriage return", "a\rb"),
        Arguments.of("a NUL", "a\u0000b"),
        Arguments.of("DEL", "a\u007Fb"),
        Arguments.of("a C1 control (NEL)", "a\u0085b"),
        Arguments.of("an unpaired high surrogate", "a\uD800b"),
        Arguments.of("an unpaired low surrogate", "a\uDC00"),
        Arguments.of("a lone high surrogate at the end", "lock\uD83D"));
  }

  static Stream<Arguments> dataNames() {
    return Stream.of(
        Arguments.of("quotes", "it's \"quoted\" `too`"),
        Arguments.of("SQL injection", "x'; DROP TABLE locks; --"),
        Arguments.of("Lua code", "x\") redis.call('flushall') --"),
        Arguments.of("a Redis hash tag", "{tag}rest"),
        Arguments.of("an empty hash tag", "{}x{y}"),
        Arguments.of("glob characters", "*?[a-z]\\"),
        Arguments.of("format specifiers", "%s%n%d${x}"),
        Arguments.of("path segments", "../../etc/passwd"),
        Arguments.of("spaces and colons", "orders : 42 "),
        Arguments.of("emoji", "lock 🔒😀 ünïcödé 锁"),
        Arguments.of("256 ASCII bytes", "n".repeat(256)),
        Arguments.of("256 bytes of multibyte text", "€".repeat(85) + "a"),
        Arguments.of("64 four-byte emoji (256 bytes)", "😀".repeat(64)),
        Arguments.of("a memcached-hostile key", "key with spaces and \u00a0 nbsp"));
  }

  /** Promise 9: bad input fails fast, naming the problem; names are data. */
  @Nested
  @DisplayName("10. Bad input")
  public class BadInput {

    @ParameterizedTest(
        name =
            "Rule 10.1: a lock name with {0} is refused by lock(), lockAll() and readWriteLock()")
    @MethodSource("dev.locksmith.tck.LockStoreContract#badNames")
    @DisplayName("Rule 10.1: invalid lock names are refused with IllegalArgumentException")
    void badNamesRefused(String what, String name) {
      LockClient a = client();
      assertThatThrownBy(() -> a.lock(name))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lock name");
      assertThatThrownBy(() -> a.lockAll(lockName("ok"), name))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lock name");
      assertThatThrownBy(() -> a.readWriteLock(name))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lock name");
    }

    @ParameterizedTest(name = "Rule 10.2: a name with {0} is data: it locks, excludes, round-trips")
    @MethodSource("dev.locksmith.tck.LockStoreContract#dataNames")
    @DisplayName("Rule 10.2: names with metacharacters are data and round-trip")
    void namesAreData(String what, String suffix) {
      LockClient a = client();
      LockClient b = client();
      String name = suffix.length() >= 64 ? suffix : lockName(suffix);
      Lease lease = a.lock(name).tryAcquire().orElseThrow();
      assertThat(lease.name()).isEqualTo(name);
      assertThat(b.lock(name).isLocked()).as("isLocked from another client").isTrue();
      assertThat(b.lock(name).tryAcquire()).as("tryAcquire from another client").isEmpty();
      lease.release();
      Optional<Lease> next = b.lock(name).tryAcquire();
      assertThat(next).as("after release").isPresent();
      assertThat(next.get().name()).isEqualTo(name);
      next.get().release();
    }

    @Test
    @DisplayName(
        "Rule 10.3: names that naive key encodings conflate are different locks (case, ':' vs '_',"
            + " NFC vs NFD, trailing space, prefix)")
    void distinctNamesDoNotCollide() {
      List<String> names =
          List.of(
              lockName("a:b"),
              lockName("a_b"),
              lockName("a/b"),
              lockName("a%3Ab"),
              lockName("A:B"),
              lockName("a:b "),
              lockName("é"),
              lockName("e\u0301"),
              lockName("a:b:"),
              lockName("a"));
      List<Lease> held = new ArrayList<>();
      for (String n : names) {
        Optional<Lease> l = client().lock(n).tryAcquire();
        assertThat(l).as("lock '%s' while the similar names are held", n).isPresent();
        held.add(l.get());
      }
      held.forEach(Lease::release);
    }

    @Test
    @DisplayName("Rule 10.4: null names and name lists are refused with NullPointerException")
    void nullNames() {
      LockClient a = client();
      assertThatThrownBy(() -> a.lock(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> a.readWriteLock(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> a.lockAll((List<String>) null))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> a.lockAll(lockName("a"), null))
          .isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("Rule 10.5: lockAll with no names or a repeated name is refused")
    void badNameLists() {
      LockClient a = client();
      assertThatThrownBy(() -> a.lockAll(List.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("empty");
      assertThatThrownBy(() -> a.lockAll(lockName("a"), lockName("a")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("distinct");
    }

    @Test
    @DisplayName(
        "Rule 10.6: non-positive, over-long and null lease times are refused, naming leaseTime")
    void badLeaseTimes() {
      DistributedLock lock = client().lock(lockName("x"));
      for (Duration bad :
          List.of(
              Duration.ZERO,
              Duration.ofMillis(-1),
              Duration.ofNanos(-1),
              LockOptions.MAX_LEASE_TIME.plusNanos(1),
              Duration.ofDays(365))) {
        assertThatThrownBy(() -> lock.withLeaseTime(bad))
            .as("withLeaseTime(%s)", bad)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(bad))
            .as("LockOptions.leaseTime(%s)", bad)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime");
      }
      assertThatThrownBy(() -> lock.withLeaseTime(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("Rule 10.7: negative, over-long and null waits are refused, naming the wait")
    void badWaits() {
      LockClient a = client();
      DistributedLock lock = a.lock(lockName("x"));
      for (Duration bad : List.of(Duration.ofMillis(-1), LockOptions.MAX_WAIT.plusSeconds(1))) {
        assertThatThrownBy(() -> lock.tryAcquire(bad))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.acquire(bad))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("wait");
        assertThatThrownBy(() -> a.lockAll(lockName("y")).acquire(bad))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("wait");
      }
      assertThatThrownBy(() -> lock.acquire(null)).isInstanceOf(NullPointerException.class);
      assertThat(client().lock(lockName("x")).tryAcquire()).as("nothing was taken").isPresent();
    }

    @Test
    @DisplayName("Rule 10.8: a bad extend leaves the lease as it was")
    void badExtend() {
      LockClient a = client();
      Lease lease = a.lock(lockName("x")).tryAcquire().orElseThrow();
      assertThatThrownBy(() -> lease.extend(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("leaseTime");
      assertThatThrownBy(() -> lease.extend(LockOptions.MAX_LEASE_TIME.plusSeconds(1)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(lease.isValid()).isTrue();
      lease.release();
    }

    @Test
    @DisplayName(
        "Rule 10.9: blank, over-long, control-character and null owners are refused, naming the"
            + " owner")
    void badOwners() {
      DistributedLock lock = client().lock(lockName("x"));
      for (String bad : List.of("", "  ", "a\nb", "o".repeat(129), "\u0000")) {
        assertThatThrownBy(() -> lock.withOwner(bad))
            .as("withOwner(%s)", bad)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("owner");
      }
      assertThatThrownBy(() -> lock.withOwner(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> LockOptions.builder().owner("p".repeat(65)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("owner");
    }

    @Test
    @DisplayName("Rule 10.10: bad client options (backoff, key prefix) are refused, naming them")
    void badOptions() {
      assertThatThrownBy(
              () -> LockOptions.builder().backoff(Duration.ofMillis(50), Duration.ofMillis(5)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("backoffMin");
      assertThatThrownBy(() -> LockOptions.builder().backoffMin(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("backoffMin");
      assertThatThrownBy(() -> LockOptions.builder().keyPrefix("a\nb"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix");
      assertThatThrownBy(() -> LockOptions.builder().keyPrefix("k".repeat(65)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix");
    }

    @Test
    @DisplayName("Rule 10.11: a closed client refuses new locks with IllegalStateException")
    void closedClient() {
      LockClient a = newClient();
      a.close();
      assertThatThrownBy(() -> a.lock(lockName("x"))).isInstanceOf(IllegalStateException.class);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 11. Store failure

  /** Promise 10: failures are reported, never hidden, and the client recovers by itself. */
  @Nested
  @DisplayName("11. Store failure")
  public class StoreFailure {

    private Duration failBound() {
      return storeTimeout().plus(slack());
    }

    @Test
    @DisplayName(
        "Rule 11.1: on a paused store, tryAcquire and acquire throw LockStoreException within the"
            + " store timeout plus the slack, never a lease; after resume the same client acquires"
            + " again")
    void pausedStore() {
      StoreFaults faults = requireFaults();
      LockClient a = client();
      String name = lockName("x");
      DistributedLock lock = a.lock(name).withLeaseTime(expiryLease(a));
      lock.tryAcquire().orElseThrow().release(); // connected and working
      faults.pause();
      try {
        long start = System.nanoTime();
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockStoreException.class);
        assertThat(millisSince(start)).isLessThanOrEqualTo(failBound().toMillis());
        start = System.nanoTime();
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
            .isInstanceOf(LockStoreException.class);
        assertThat(millisSince(start)).isLessThanOrEqualTo(failBound().toMillis());
      } finally {
        faults.resume();
      }
      // An attempt the paused store queued may leave a hold until its lease ends.
      Lease again = awaitRecovered(lock, recoveryTime().plus(expiryLease(a)).plus(slack()));
      again.release();
    }

    @Test
    @DisplayName(
        "Rule 11.2: on a killed store, acquire throws LockStoreException within the bound; after a"
            + " restart the same client acquires again by itself")
    void killedStore() {
      StoreFaults faults = requireFaults();
      LockClient a = client();
      String name = lockName("x");
      DistributedLock lock = a.lock(name);
      lock.tryAcquire().orElseThrow().release();
      faults.kill();
      try {
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
            .isInstanceOf(LockStoreException.class);
        assertThat(millisSince(start)).isLessThanOrEqualTo(failBound().toMillis());
      } finally {
        faults.restart();
      }
      awaitRecovered(lock, recoveryTime()).release();
    }

    @Test
    @DisplayName(
        "Rule 11.3: a holder is told through onLost when an outage outlasts its lease, and its"
            + " lease is no longer valid")
    void outageOutlastingLeaseIsReported() {
      StoreFaults faults = requireFaults();
      LockClient a = client();
      Duration lease = expiryLease(a);
      AtomicReference<LeaseLostException> reason = new AtomicReference<>();
      Lease held =
          a.lock(lockName("x"))
              .withLeaseTime(lease)
              .tryAcquire()
              .orElseThrow()
              .onLost((l, why) -> reason.set(why));
      faults.kill();
      try {
        await()
            .atMost(lease.plus(storeTimeout()).plus(slack()))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> reason.get() != null);
        assertThat(held.isValid()).isFalse();
      } finally {
        faults.restart();
      }
      assertThatThrownBy(held::release).isInstanceOf(LeaseLostException.class);
    }

    @Test
    @DisplayName(
        "Rule 11.4: a store failure during an acquire never leaves the caller holding anything:"
            + " after recovery another client takes the lock")
    void failedAcquireLeavesNothing() {
      StoreFaults faults = requireFaults();
      LockClient a = client();
      LockClient b = client();
      String name = lockName("x");
      Duration lease = expiryLease(a);
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
      awaitRecovered(b.lock(name), recoveryTime().plus(lease).plus(slack())).release();
    }

    private Lease awaitRecovered(DistributedLock lock, Duration atMost) {
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
  }
}
