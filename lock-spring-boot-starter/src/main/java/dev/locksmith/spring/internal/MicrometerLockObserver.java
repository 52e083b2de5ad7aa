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
 * {@code store} (the store's short name: {@code redis}, {@code jdbc/h2}…), never with lock names,
 * whose cardinality is the application's.
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
  private final Map<String, StoreMeters> stores = new ConcurrentHashMap<>();

  /** Records into {@code registry}. */
  public MicrometerLockObserver(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
    StoreMeters meters = meters(store);
    Timer.builder("locksmith.acquire")
        .description("Acquire calls: how long they took and how they ended")
        .tag("store", store)
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
        .tag("store", store)
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
    return stores.computeIfAbsent(store, this::register);
  }

  private StoreMeters register(String store) {
    AtomicInteger held = new AtomicInteger();
    Gauge.builder("locksmith.held", held, AtomicInteger::get)
        .description("Leases held now")
        .tag("store", store)
        .register(registry);
    Counter lost =
        Counter.builder("locksmith.lost")
            .description("Leases lost before their holder released them")
            .tag("store", store)
            .register(registry);
    return new StoreMeters(held, lost);
  }

  private record StoreMeters(AtomicInteger held, Counter lost) {}
}
