package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.internal.EngineClient;
import dev.locksmith.mem.MemLockSpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The engine's own behaviour on the mem: store; the full contract is lock-tck's. */
class EngineTest {

  private final List<LockClient> clients = new ArrayList<>();
  private String space;

  @BeforeEach
  void newSpace() {
    space = "engine-" + UUID.randomUUID();
  }

  @AfterEach
  void closeClients() {
    MemLockSpace.named(space).endOutage();
    clients.forEach(LockClient::close);
  }

  private LockClient client(LockOptions options) {
    LockClient c = LockClient.open("mem:" + space, options);
    clients.add(c);
    return c;
  }

  private LockClient client() {
    return client(LockOptions.defaults());
  }

  @Test
  @DisplayName("a released lock is free for the next owner; release and close are idempotent")
  void releaseFreesAndIsIdempotent() {
    LockClient a = client();
    LockClient b = client();
    Lease lease = a.lock("l").tryAcquire().orElseThrow();
    assertThat(b.lock("l").tryAcquire()).isEmpty();
    assertThat(b.lock("l").isLocked()).isTrue();
    lease.release();
    lease.release();
    lease.close();
    assertThat(lease.isValid()).isFalse();
    assertThat(b.lock("l").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("two acquires from one client exclude each other: the lease, not the process, owns")
  void acquiresFromOneClientExclude() {
    LockClient a = client();
    Lease first = a.lock("l").tryAcquire().orElseThrow();
    assertThat(a.lock("l").tryAcquire()).isEmpty();
    first.release();
  }

  @Test
  @DisplayName("an unrenewed lease expires, fires onLost once, and its late release frees nothing")
  void expiryIsReported() throws Exception {
    LockClient a = client(LockOptions.builder().autoRenew(false).build());
    LockClient b = client();
    AtomicInteger told = new AtomicInteger();
    Lease lease = a.lock("l").withLeaseTime(Duration.ofMillis(200)).tryAcquire().orElseThrow();
    lease.onLost((l, why) -> told.incrementAndGet());
    await().atMost(Duration.ofSeconds(5)).until(() -> told.get() == 1);
    assertThat(lease.isValid()).isFalse();
    Lease next = b.lock("l").acquire(Duration.ofSeconds(2));
    assertThatThrownBy(lease::release)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("expired");
    assertThat(next.isValid()).isTrue();
    assertThat(a.lock("l").tryAcquire()).as("the late release must not free b's lock").isEmpty();
    assertThat(told).hasValue(1);
    AtomicInteger late = new AtomicInteger();
    lease.onLost((l, why) -> late.incrementAndGet());
    assertThat(late).as("a listener added after the loss is told at once").hasValue(1);
  }

  @Test
  @DisplayName("the watchdog keeps a lease through several lease lengths")
  void renewalKeepsLease() throws Exception {
    // Renewed at a third of a second-long lease: a renewal may run late by two thirds of a second
    // on a loaded machine before the lease lapses.
    LockClient a = client(LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build());
    LockClient b = client();
    Lease lease = a.lock("l").tryAcquire().orElseThrow();
    long end = System.nanoTime() + Duration.ofMillis(3500).toNanos();
    while (System.nanoTime() < end) {
      assertThat(b.lock("l").tryAcquire()).isEmpty();
      assertThat(lease.isValid()).isTrue();
      Thread.sleep(50);
    }
    assertThat(lease.expiresAt()).isAfter(java.time.Instant.now());
    lease.release();
  }

  @Test
  @DisplayName("one client renews thousands of leases with at most two threads and loses none")
  void manyLeasesTwoThreads() throws Exception {
    // 3000 renewals per third of a lease on one thread: a 3 s lease leaves room for a slow machine.
    LockClient a = client(LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build());
    AtomicInteger lost = new AtomicInteger();
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      Lease l = a.lock("many-" + i).tryAcquire().orElseThrow();
      l.onLost((lease, why) -> lost.incrementAndGet());
      leases.add(l);
    }
    Thread.sleep(4000);
    assertThat(lost).as("leases lost while renewed").hasValue(0);
    assertThat(leases).allMatch(Lease::isValid);
    long renewers =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("locksmith-renewer-"))
            .map(t -> t.getName().replaceAll("-(sweep|store)$", ""))
            .collect(
                java.util.stream.Collectors.groupingBy(
                    n -> n, java.util.stream.Collectors.counting()))
            .values()
            .stream()
            .mapToLong(Long::longValue)
            .max()
            .orElse(0);
    assertThat(renewers).as("threads of one client's watchdog").isLessThanOrEqualTo(2);
    leases.forEach(Lease::release);
    await().atMost(Duration.ofSeconds(2)).until(() -> ((EngineClient) a).scheduledTimers() == 0);
  }

  @Test
  @DisplayName("an outage longer than the lease fires onLost; acquire fails; the client recovers")
  void outage() {
    LockClient a = client(LockOptions.builder().leaseTime(Duration.ofMillis(300)).build());
    AtomicReference<LeaseLostException> why = new AtomicReference<>();
    Lease lease = a.lock("l").tryAcquire().orElseThrow();
    lease.onLost((l, e) -> why.set(e));
    MemLockSpace.named(space).startOutage();
    assertThatThrownBy(() -> a.lock("m").tryAcquire()).isInstanceOf(LockStoreException.class);
    await().atMost(Duration.ofSeconds(5)).until(() -> why.get() != null);
    assertThat(why.get()).hasMessageContaining("renewal failed");
    MemLockSpace.named(space).endOutage();
    assertThatThrownBy(lease::close).isInstanceOf(LeaseLostException.class);
    assertThat(a.lock("m").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("closing a client releases its leases; a closed client refuses use")
  void closeReleases() {
    LockClient a = client();
    LockClient b = client();
    a.lock("l").tryAcquire().orElseThrow();
    a.close();
    assertThat(b.lock("l").tryAcquire()).isPresent();
    assertThatThrownBy(() -> a.lock("l")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  @DisplayName("a crashed client's lock frees only when its lease runs out")
  void crashLeavesLockUntilExpiry() throws Exception {
    LockClient a = client(LockOptions.builder().leaseTime(Duration.ofMillis(400)).build());
    LockClient b = client();
    // Timed from before the acquire: the store grants the hold after this, so it cannot free the
    // lock sooner than the lease after it, however late the next line runs on a loaded machine.
    long start = System.nanoTime();
    a.lock("l").tryAcquire().orElseThrow();
    ((EngineClient) a).crash();
    assertThat(b.lock("l").tryAcquire()).isEmpty();
    b.lock("l").acquire(Duration.ofSeconds(3)).release();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("an interrupted waiter throws, holds nothing, and leaves no timer behind")
  void interruptLeavesNothing() throws Exception {
    LockClient a = client();
    LockClient b = client();
    Lease held = a.lock("l").tryAcquire().orElseThrow();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch started = new CountDownLatch(1);
      Future<Object> waiter =
          pool.submit(
              () -> {
                started.countDown();
                return b.lock("l").acquire(Duration.ofSeconds(30));
              });
      started.await();
      Thread.sleep(100);
      waiter.cancel(true);
      assertThatThrownBy(waiter::get)
          .isInstanceOf(java.util.concurrent.CancellationException.class);
      held.release();
      Optional<Lease> now = a.lock("l").tryAcquire();
      assertThat(now).as("no orphan hold by the interrupted waiter").isPresent();
      assertThat(((EngineClient) b).activeLeases()).isZero();
      await().atMost(Duration.ofSeconds(2)).until(() -> ((EngineClient) b).scheduledTimers() == 0);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @DisplayName("a waiter wakes soon after release through the store's notification")
  void wakesOnRelease() throws Exception {
    LockClient a =
        client(LockOptions.builder().backoff(Duration.ofSeconds(5), Duration.ofSeconds(5)).build());
    LockClient b =
        client(LockOptions.builder().backoff(Duration.ofSeconds(5), Duration.ofSeconds(5)).build());
    Lease held = a.lock("l").tryAcquire().orElseThrow();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Lease> waiter = pool.submit(() -> b.lock("l").acquire(Duration.ofSeconds(30)));
      Thread.sleep(200);
      long released = System.nanoTime();
      held.release();
      Lease got = waiter.get(3, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - released))
          .as("woken by the release, not by a 5 s backoff")
          .isLessThan(Duration.ofSeconds(2));
      got.release();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @DisplayName("the Lock view is reentrant per thread and owned by the thread")
  void threadView() throws Exception {
    LockClient a = client();
    ThreadOwnedLock lock = a.lock("l").asLock();
    lock.lock();
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.getHoldCount()).isEqualTo(2);
    assertThat(a.lock("l").asLock().getHoldCount()).as("views share bookkeeping").isEqualTo(2);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      assertThat(pool.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get()).isFalse();
      assertThatThrownBy(() -> pool.submit(lock::unlock).get())
          .hasCauseInstanceOf(IllegalMonitorStateException.class);
    } finally {
      pool.shutdownNow();
    }
    lock.unlock();
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    assertThat(lock.currentLease()).isPresent();
    lock.unlock();
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(lock::newCondition)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Condition");
  }

  @Test
  @DisplayName("an owner acquiring again gets a nested hold with the same token")
  void reentrantOwner() {
    LockClient a = client();
    LockClient b = client();
    DistributedLock job = a.lock("l").withOwner("job-17");
    Lease outer = job.tryAcquire().orElseThrow();
    Lease inner = b.lock("l").withOwner("job-17").tryAcquire().orElseThrow();
    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    inner.release();
    assertThat(b.lock("l").tryAcquire()).isEmpty();
    outer.release();
    assertThat(b.lock("l").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("fencing tokens strictly increase across holders")
  void fencing() {
    LockClient a = client();
    long last = 0;
    for (int i = 0; i < 50; i++) {
      try (Lease l = a.lock("f").tryAcquire().orElseThrow()) {
        assertThat(l.fencingToken()).isGreaterThan(last);
        last = l.fencingToken();
      }
    }
  }

  @Test
  @DisplayName("lockAll in opposite orders from two clients never deadlocks")
  void multiLockNoDeadlock() throws Exception {
    LockClient a = client();
    LockClient b = client();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    AtomicInteger rounds = new AtomicInteger();
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (LockClient c : List.of(a, b)) {
        List<String> names = c == a ? List.of("x", "y", "z") : List.of("z", "y", "x");
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    try (MultiLease all = c.lockAll(names).acquire(Duration.ofSeconds(10))) {
                      assertThat(all.isValid()).isTrue();
                      rounds.incrementAndGet();
                    } catch (Throwable t) {
                      errors.add(t);
                    }
                  }
                }));
      }
      for (Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(errors).isEmpty();
    assertThat(rounds).hasValue(400);
  }

  @Test
  @DisplayName(
      "lockAll waits: tryAcquire(wait) gives up holding none, acquire() takes all once free")
  void multiLockWaits() throws Exception {
    LockClient a = client();
    LockClient b = client();
    Lease y = b.lock("y").tryAcquire().orElseThrow();
    assertThat(a.lockAll("x", "y").tryAcquire(Duration.ofMillis(200))).isEmpty();
    assertThat(b.lock("x").tryAcquire())
        .as("x was given back after the wait")
        .isPresent()
        .get()
        .satisfies(Lease::release);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<MultiLease> all = pool.submit(() -> a.lockAll("x", "y").acquire());
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> !all.isDone());
      y.release();
      try (MultiLease got = all.get(30, TimeUnit.SECONDS)) {
        assertThat(got.isValid()).isTrue();
        assertThat(b.lock("x").tryAcquire()).isEmpty();
        assertThat(b.lock("y").tryAcquire()).isEmpty();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(b.lock("y").tryAcquire()).as("closing the multi-lease released y").isPresent();
  }

  @Test
  @DisplayName("lockAll is all or nothing")
  void multiLockAllOrNothing() {
    LockClient a = client();
    LockClient b = client();
    Lease y = b.lock("y").tryAcquire().orElseThrow();
    assertThat(a.lockAll("x", "y", "z").tryAcquire()).isEmpty();
    assertThat(b.lock("x").tryAcquire()).as("x was given back").isPresent();
    y.release();
    assertThatThrownBy(() -> a.lockAll("x", "x"))
        .hasMessageContaining("'x' appears more than once");
    assertThatThrownBy(() -> a.lockAll()).hasMessageContaining("names must not be empty");
  }

  @Test
  @DisplayName("a waiting writer keeps new readers out")
  void writerNotStarved() throws Exception {
    LockClient a = client();
    LockClient b = client();
    DistributedReadWriteLock rw = a.readWriteLock("rw");
    Lease r1 = rw.readLock().tryAcquire().orElseThrow();
    Lease r2 = b.readWriteLock("rw").readLock().tryAcquire().orElseThrow();
    assertThat(rw.writeLock().tryAcquire(Duration.ofMillis(50))).isEmpty();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Lease> writer =
          pool.submit(() -> b.readWriteLock("rw").writeLock().acquire(Duration.ofSeconds(10)));
      await()
          .atMost(Duration.ofSeconds(2))
          .until(() -> a.readWriteLock("rw").readLock().tryAcquire().isEmpty());
      r1.release();
      r2.release();
      Lease w = writer.get(5, TimeUnit.SECONDS);
      assertThat(a.readWriteLock("rw").readLock().tryAcquire()).isEmpty();
      w.release();
      assertThat(a.readWriteLock("rw").readLock().tryAcquire()).isPresent();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @DisplayName("a write tryAcquire that finds readers does not keep later readers out")
  void failedWriteTryDoesNotBlockReaders() {
    LockClient a = client();
    LockClient b = client();
    Lease r1 = a.readWriteLock("rw").readLock().tryAcquire().orElseThrow();
    assertThat(b.readWriteLock("rw").writeLock().tryAcquire()).isEmpty();
    assertThat(b.readWriteLock("rw").readLock().tryAcquire()).isPresent();
    r1.release();
  }

  @Test
  @DisplayName("Lock.tryLock with a huge time waits as long as it takes instead of failing")
  void tryLockHugeTime() throws Exception {
    ThreadOwnedLock lock = client().lock("huge").asLock();
    assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
    lock.unlock();
  }

  @Test
  @DisplayName("bad arguments fail fast with messages that name them")
  void badArguments() {
    LockClient a = client();
    assertThatThrownBy(() -> a.lock(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> a.lock("l").withLeaseTime(Duration.ofMillis(-5)))
        .hasMessageContaining("leaseTime must be positive");
    assertThatThrownBy(() -> a.lock("l").tryAcquire(Duration.ofSeconds(-1)))
        .hasMessageContaining("wait must not be negative");
    assertThatThrownBy(() -> a.lock("l").withOwner(" "))
        .hasMessageContaining("owner must not be blank");
    assertThatThrownBy(
            () -> LockOptions.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("backoffMin");
  }
}
