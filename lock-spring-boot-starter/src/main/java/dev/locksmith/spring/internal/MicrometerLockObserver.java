package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locksmith's meters, fed by the engine's {@link LockObserver} hooks. Every meter is tagged with
 * {@code store}, the kind of store ({@link StoreTag}: {@code redis}, {@code jdbc/h2}…, never an
 * address); lock names, whose cardinality is the application's, tag only {@code
 * locksmith.waiters.by.name}, and only the first few names that ever had waiters.
 *
 * <ul>
 *   <li>{@code locksmith.acquire} (timer; tag {@code outcome} = acquired, busy, timeout,
 *       interrupted, error): how long acquire calls took and how they ended;
 *   <li>{@code locksmith.held} (gauge): leases the client holds now;
 *   <li>{@code locksmith.lost} (counter; tag {@code kind} = expired, renewal_failed, not_held,
 *       session_lost): leases lost before their holder released them, by what ended them;
 *   <li>{@code locksmith.renewal} (timer; tag {@code outcome} = renewed, lost, failed): the
 *       watchdog's renewals;
 *   <li>{@code locksmith.renewal.lag} (summary, a fraction of the lease): how long after its due
 *       time each renewal was sent. Renewals are due at a third of the lease, so a lag of 2/3 means
 *       the lease ran out before the store heard from the holder; alert well below that;
 *   <li>{@code locksmith.release.margin} (summary, a fraction of the lease): the lease left when
 *       the holder released it; near zero means critical sections outlast their leases;
 *   <li>{@code locksmith.wait} (timer; tag {@code outcome}): acquires that found the lock taken and
 *       waited, from the first busy answer to their end; for {@code acquired}, the hand-off time;
 *   <li>{@code locksmith.waiters} (gauge): acquires waiting now; {@code locksmith.waiters.by.name}
 *       (gauge; tag {@code lock}) the same per lock name, for the first {@code namedWaiters} names
 *       that had waiters (later names count under {@code lock=_other}).
 * </ul>
 *
 * <p>The gauges and counters of a store appear with its first acquire, at zero.
 */
public final class MicrometerLockObserver implements LockObserver {

  /** The {@code lock} tag of waiters on names past the bound. */
  public static final String OTHER_NAMES = "_other";

  private final MeterRegistry registry;
  private final int namedWaiters;
  // By tag: two clients on stores of one kind share their meters.
  private final Map<String, StoreMeters> byTag = new ConcurrentHashMap<>();
  // By the engine's store description, so the tag is worked out once per store.
  private final Map<String, StoreMeters> byStore = new ConcurrentHashMap<>();

  /** Records into {@code registry}, with no per-name waiter gauges. */
  public MicrometerLockObserver(MeterRegistry registry) {
    this(registry, 0);
  }

  /**
   * Records into {@code registry}; at most {@code namedWaiters} lock names get a waiter gauge of
   * their own.
   *
   * @throws IllegalArgumentException if {@code namedWaiters} is negative
   */
  public MicrometerLockObserver(MeterRegistry registry, int namedWaiters) {
    if (namedWaiters < 0) {
      throw new IllegalArgumentException("namedWaiters must not be negative, was " + namedWaiters);
    }
    this.registry = registry;
    this.namedWaiters = namedWaiters;
  }

  @Override
  public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
    StoreMeters meters = meters(store);
    Timer.builder("locksmith.acquire")
        .description("Acquire calls: how long they took and how they ended")
        .tag("store", meters.tag())
        .tag("outcome", tagOf(outcome))
        .register(registry)
        .record(took);
    if (outcome == AcquireOutcome.ACQUIRED) {
      meters.held.incrementAndGet();
    }
  }

  @Override
  public void renewalEnded(String store, String lockName, RenewalOutcome outcome, Duration took) {
    Timer.builder("locksmith.renewal")
        .description("Lease renewals by the watchdog")
        .tag("store", meters(store).tag())
        .tag("outcome", tagOf(outcome))
        .register(registry)
        .record(took);
  }

  @Override
  public void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {
    meters(store).renewalLag.record(fraction(late, leaseTime));
  }

  @Override
  public void releasedWithMargin(
      String store, String lockName, Duration remaining, Duration leaseTime) {
    meters(store).releaseMargin.record(fraction(remaining, leaseTime));
  }

  @Override
  public void waitStarted(String store, String lockName) {
    StoreMeters meters = meters(store);
    meters.waiters.incrementAndGet();
    meters.waitersOn(lockName).incrementAndGet();
  }

  @Override
  public void waitEnded(String store, String lockName, AcquireOutcome outcome, Duration waited) {
    StoreMeters meters = meters(store);
    meters.waiters.decrementAndGet();
    meters.waitersOn(lockName).decrementAndGet();
    Timer.builder("locksmith.wait")
        .description("Acquires that found the lock taken: how long they waited, how it ended")
        .tag("store", meters.tag())
        .tag("outcome", tagOf(outcome))
        .register(registry)
        .record(waited);
  }

  @Override
  public void leaseLost(String store, Lease lease, LeaseLostException reason) {
    meters(store).lost.get(reason.kind()).increment();
  }

  @Override
  public void leaseEnded(String store, Lease lease) {
    meters(store).held.decrementAndGet();
  }

  private static String tagOf(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  private static double fraction(Duration part, Duration whole) {
    return whole.isZero() ? 0 : (double) part.toNanos() / whole.toNanos();
  }

  private StoreMeters meters(String store) {
    return byStore.computeIfAbsent(
        store, s -> byTag.computeIfAbsent(StoreTag.of(s), this::register));
  }

  private StoreMeters register(String tag) {
    AtomicInteger held = new AtomicInteger();
    Gauge.builder("locksmith.held", held, AtomicInteger::get)
        .description("Leases held now")
        .tag("store", tag)
        .register(registry);
    AtomicInteger waiters = new AtomicInteger();
    Gauge.builder("locksmith.waiters", waiters, AtomicInteger::get)
        .description("Acquires waiting for a taken lock now")
        .tag("store", tag)
        .register(registry);
    Map<LeaseLostException.Kind, Counter> lost = new EnumMap<>(LeaseLostException.Kind.class);
    for (LeaseLostException.Kind kind : LeaseLostException.Kind.values()) {
      lost.put(
          kind,
          Counter.builder("locksmith.lost")
              .description("Leases lost before their holder released them, by what ended them")
              .tag("store", tag)
              .tag("kind", tagOf(kind))
              .register(registry));
    }
    DistributionSummary lag =
        DistributionSummary.builder("locksmith.renewal.lag")
            .description("How late each renewal was sent, as a fraction of its lease")
            .baseUnit("leases")
            .tag("store", tag)
            .register(registry);
    DistributionSummary margin =
        DistributionSummary.builder("locksmith.release.margin")
            .description("The lease left when its holder released it, as a fraction of the lease")
            .baseUnit("leases")
            .tag("store", tag)
            .register(registry);
    return new StoreMeters(tag, held, waiters, lost, lag, margin, new ConcurrentHashMap<>());
  }

  private final class StoreMeters {
    private final String tag;
    private final AtomicInteger held;
    private final AtomicInteger waiters;
    private final Map<LeaseLostException.Kind, Counter> lost;
    private final DistributionSummary renewalLag;
    private final DistributionSummary releaseMargin;
    private final Map<String, AtomicInteger> waitersByName;

    StoreMeters(
        String tag,
        AtomicInteger held,
        AtomicInteger waiters,
        Map<LeaseLostException.Kind, Counter> lost,
        DistributionSummary renewalLag,
        DistributionSummary releaseMargin,
        Map<String, AtomicInteger> waitersByName) {
      this.tag = tag;
      this.held = held;
      this.waiters = waiters;
      this.lost = lost;
      this.renewalLag = renewalLag;
      this.releaseMargin = releaseMargin;
      this.waitersByName = waitersByName;
    }

    String tag() {
      return tag;
    }

    /** The waiter count of {@code lockName}'s gauge, or of {@code _other} past the bound. */
    AtomicInteger waitersOn(String lockName) {
      AtomicInteger count = waitersByName.get(lockName);
      if (count != null) {
        return count;
      }
      synchronized (waitersByName) {
        // One slot is kept for _other, so the number of gauges never passes the bound plus one.
        String name =
            waitersByName.containsKey(lockName) || waitersByName.size() < namedWaiters
                ? lockName
                : OTHER_NAMES;
        return waitersByName.computeIfAbsent(name, this::registerNamed);
      }
    }

    private AtomicInteger registerNamed(String name) {
      AtomicInteger count = new AtomicInteger();
      Gauge.builder("locksmith.waiters.by.name", count, AtomicInteger::get)
          .description("Acquires waiting for a taken lock now, per lock name (bounded)")
          .tag("store", tag)
          .tag("lock", name)
          .register(registry);
      return count;
    }
  }
}
