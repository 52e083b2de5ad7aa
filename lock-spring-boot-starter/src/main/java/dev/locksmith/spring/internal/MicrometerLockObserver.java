package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locksmith's meters, fed by the engine's {@link LockObserver} hooks. Every meter is tagged with
 * {@code store}, the kind of store ({@link StoreTag}: {@code redis}, {@code jdbc/h2}…, never an
 * address), and never with lock names, whose cardinality is the application's.
 *
 * <ul>
 *   <li>{@code locksmith.acquire} (timer; tag {@code outcome} = acquired, busy, timeout,
 *       interrupted, error): how long acquire calls took and how they ended;
 *   <li>{@code locksmith.held} (gauge): leases the client holds now;
 *   <li>{@code locksmith.lost} (counter): leases lost before their holder released them;
 *   <li>{@code locksmith.renewal} (timer; tag {@code outcome} = renewed, lost, failed): the
 *       watchdog's renewals.
 * </ul>
 *
 * <p>The gauge and the counter of a store appear with its first acquire, at zero.
 */
public final class MicrometerLockObserver implements LockObserver {

  private final MeterRegistry registry;
  // By tag: two clients on stores of one kind share their meters.
  private final Map<String, StoreMeters> byTag = new ConcurrentHashMap<>();
  // By the engine's store description, so the tag is worked out once per store.
  private final Map<String, StoreMeters> byStore = new ConcurrentHashMap<>();

  /** Records into {@code registry}. */
  public MicrometerLockObserver(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
    StoreMeters meters = meters(store);
    Timer.builder("locksmith.acquire")
        .description("Acquire calls: how long they took and how they ended")
        .tag("store", meters.tag())
        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
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
        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
        .register(registry)
        .record(took);
  }

  @Override
  public void leaseLost(String store, Lease lease, LeaseLostException reason) {
    meters(store).lost.increment();
  }

  @Override
  public void leaseEnded(String store, Lease lease) {
    meters(store).held.decrementAndGet();
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
    Counter lost =
        Counter.builder("locksmith.lost")
            .description("Leases lost before their holder released them")
            .tag("store", tag)
            .register(registry);
    return new StoreMeters(tag, held, lost);
  }

  private record StoreMeters(String tag, AtomicInteger held, Counter lost) {}
}
