package dev.locksmith.tck;

import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The running test's side of the kit: the clients it made (closed after the test), lock names
 * unique to the test, thread pools, the store's timings and the contract's hooks.
 *
 * <p>Rules get it from {@link KitTest#kit()}; a contract subclass that adds rules of its own can
 * use the public methods too.
 */
public final class Kit {

  private final LockStoreContract contract;
  private final List<LockClient> clients = new CopyOnWriteArrayList<>();
  private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
  private final String prefix;

  Kit(LockStoreContract contract) {
    this.contract = contract;
    this.prefix =
        "tck-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "-";
  }

  // Clients, names, threads.

  /** A new client with default options, closed after the test. */
  public LockClient client() {
    return client(LockOptions.defaults());
  }

  /** A new client with {@code options}, closed after the test. */
  public LockClient client(LockOptions options) {
    LockClient c = contract.newClient(options);
    clients.add(c);
    return c;
  }

  /** Closes {@code client}, made some other way, after the test with the kit's own. */
  LockClient adopt(LockClient client) {
    clients.add(client);
    return client;
  }

  /** A lock name unique to the running test. */
  public String name(String suffix) {
    return prefix + suffix;
  }

  /**
   * A key prefix unique to the running test, made of letters, digits and {@code -} only (every
   * store takes it), for rules that count or drop what the store keeps under a prefix.
   */
  String keyPrefix(String suffix) {
    return prefix + suffix + "-";
  }

  /** Options with {@code keyPrefix} and otherwise the defaults. */
  static LockOptions prefixed(String keyPrefix) {
    return LockOptions.builder().keyPrefix(keyPrefix).build();
  }

  /**
   * Acquires {@code lock} on a thread of its own, waiting up to {@code wait}, releases it at once,
   * and answers when it held it ({@link System#nanoTime()}); {@code started} turns true as the
   * thread starts asking.
   */
  Future<Long> acquiredAt(DistributedLock lock, Duration wait, AtomicBoolean started) {
    return pool(1)
        .submit(
            () -> {
              started.set(true);
              Lease l = lock.acquire(wait);
              long at = System.nanoTime();
              l.release();
              return at;
            });
  }

  /** A pool of {@code n} threads, shut down after the test. */
  public ExecutorService pool(int n) {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    pools.add(pool);
    return pool;
  }

  /** Closes {@code resource} after the test, before the clients. */
  <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }

  /** A started daemon thread, interrupted and joined after the test. */
  Thread thread(Runnable r) {
    Thread t = new Thread(r, "tck-" + threads.size());
    t.setDaemon(true);
    threads.add(t);
    t.start();
    return t;
  }

  // Timings.

  Duration slack() {
    return contract.timingSlack();
  }

  Duration storeTimeout() {
    return contract.storeTimeout();
  }

  Duration recoveryTime() {
    return contract.recoveryTime();
  }

  int contentionRounds() {
    return contract.contentionRounds();
  }

  StoreTiming timing(LockClient client) {
    return contract.storeTiming(client);
  }

  /** The lease of the expiry rules: the short lease, raised to the store's minimum and unit. */
  Duration expiryLease(LockClient client) {
    StoreTiming timing = timing(client);
    Duration lease = contract.shortLease();
    if (lease.compareTo(timing.minimumLease()) < 0) {
      lease = timing.minimumLease();
    }
    return roundUp(lease, timing.granularity());
  }

  /**
   * The lease of the two-sided timing rules: longer than one and a half slacks (so "at least 90% of
   * it" and "within it plus the slack" are far apart), and half a unit off the store's granularity
   * where that is coarser than a millisecond, so a store that rounds down is caught.
   */
  Duration timingLease(LockClient client) {
    StoreTiming timing = timing(client);
    Duration lease = expiryLease(client);
    Duration floor = slack().plus(slack().dividedBy(2));
    if (lease.compareTo(floor) < 0) {
      lease = roundUp(floor, Duration.ofMillis(100));
    }
    Duration unit = timing.granularity();
    if (unit.compareTo(Duration.ofMillis(1)) > 0) {
      lease = roundUp(lease, unit).plus(unit.dividedBy(2));
    }
    return lease;
  }

  private static Duration roundUp(Duration d, Duration unit) {
    long g = unit.toNanos();
    return Duration.ofNanos((d.toNanos() + g - 1) / g * g);
  }

  // The store and the hooks.

  /** The kinds of hold the store behind {@code client} offers. */
  Set<HoldKind> kinds(LockClient client) {
    return HoldKind.offeredBy(client.capabilities());
  }

  /** Whether the store behind {@code client} ends holds at a lease time. */
  static boolean expires(LockClient client) {
    return !client.capabilities().contains(Capability.SESSION_BOUND);
  }

  /** Makes {@code client} act like a dead process. */
  void crash(LockClient client) {
    contract.crash(client);
  }

  StoreFaults faults() {
    return contract.faults().orElseThrow(() -> new IllegalStateException("no faults hook"));
  }

  OutsideActor outsideActor() {
    return contract
        .outsideActor()
        .orElseThrow(() -> new IllegalStateException("no outside actor hook"));
  }

  ClientLinks links() {
    return contract.links().orElseThrow(() -> new IllegalStateException("no links hook"));
  }

  Optional<StoreInspector> inspectorIfAny() {
    return contract.inspector();
  }

  StoreInspector inspector() {
    return contract.inspector().orElseThrow(() -> new IllegalStateException("no inspector hook"));
  }

  String storeUri() {
    return contract.storeUri().orElseThrow(() -> new IllegalStateException("no store URI hook"));
  }

  /** The store behind {@code client}, for the rules that drive the SPI directly. */
  LockStore store(LockClient client) {
    return EngineAccess.store(client)
        .orElseThrow(() -> new IllegalStateException("not an engine client: " + client));
  }

  /** {@code client} as the engine's client, for the rules that count its timers. */
  EngineClient engine(LockClient client) {
    if (!(client instanceof EngineClient)) {
      throw new IllegalStateException("not an engine client: " + client);
    }
    return (EngineClient) client;
  }

  /** A {@link FaultInjectingStore} around a new connection to the store under test. */
  FaultInjectingStore faultyStore() {
    return new FaultInjectingStore(
        EngineAccess.detachStore(contract.newClient(LockOptions.defaults())));
  }

  /** A client on {@code store} with {@code options}, closed (with the store) after the test. */
  LockClient clientOf(LockStore store, LockOptions options) {
    LockClient c = LockClient.of(store, options);
    clients.add(c);
    return c;
  }

  // Helpers for the rules.

  /** One kind's part of a rule that runs for every kind of hold. */
  @FunctionalInterface
  interface KindCheck {
    void check(HoldKind kind) throws Exception;
  }

  /**
   * Runs {@code check} for every kind of hold the store behind {@code client} offers, all kinds at
   * once on their own threads (the timing rules would otherwise take three times as long), and
   * fails with every kind's failure, each named by its kind.
   */
  void forEveryKind(LockClient client, KindCheck check) throws Exception {
    Set<HoldKind> kinds = kinds(client);
    ExecutorService pool = pool(kinds.size());
    java.util.Map<HoldKind, Future<?>> runs = new java.util.EnumMap<>(HoldKind.class);
    for (HoldKind kind : kinds) {
      runs.put(
          kind,
          pool.submit(
              () -> {
                check.check(kind);
                return null;
              }));
    }
    AssertionError failed = null;
    for (java.util.Map.Entry<HoldKind, Future<?>> run : runs.entrySet()) {
      try {
        within(run.getValue(), Duration.ofMinutes(5), run.getKey() + " holds");
      } catch (java.util.concurrent.ExecutionException e) {
        AssertionError kindFailed =
            new AssertionError(run.getKey() + " holds: " + e.getCause().getMessage(), e.getCause());
        if (failed == null) {
          failed = kindFailed;
        } else {
          failed.addSuppressed(kindFailed);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** The fencing token of {@code lease}, or {@link LockHistory#NO_TOKEN} without FENCING. */
  static long tokenOf(LockClient c, Lease lease) {
    return c.capabilities().contains(Capability.FENCING)
        ? lease.fencingToken()
        : LockHistory.NO_TOKEN;
  }

  /** Waits until {@code lock} can be taken, within {@code atMost}, and returns the lease. */
  static Lease awaitAcquired(DistributedLock lock, Duration atMost) {
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

  /** The result of {@code f}, which must finish within {@code d}. */
  static <T> T within(Future<T> f, Duration d, String what) throws Exception {
    try {
      return f.get(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new AssertionError(what + " did not finish within " + d.toMillis() + " ms", e);
    }
  }

  static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  /** Stops the test's threads and pools and closes its resources and clients. */
  void close() throws InterruptedException {
    for (Thread t : threads) {
      t.interrupt();
      t.join(5_000);
    }
    for (ExecutorService pool : pools) {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        // A resource of a store the test broke may fail to close; the next test starts afresh.
      }
    }
    for (LockClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // A client of a store that a test broke may fail to release; its leases expire.
      }
    }
  }
}
