package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import dev.locksmith.UnsupportedCapabilityException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Locksmith's operations as Micrometer {@link Observation}s, so that with Micrometer Tracing on the
 * class path each becomes a span: {@code locksmith.lock.acquire} (with a child {@code
 * locksmith.lock.wait} when the lock was taken and the caller waited), {@code
 * locksmith.lock.renewal}, {@code locksmith.lock.release}, and {@code locksmith.lock.lost}, an
 * instant observation with the loss as its error.
 *
 * <p>Low-cardinality keys (also tags of the timers Micrometer makes of observations): {@code
 * locksmith.store} (the store's kind, {@link StoreTag}), {@code locksmith.outcome} and, for losses,
 * {@code locksmith.loss}. High-cardinality keys, kept on spans and out of metrics: {@code
 * locksmith.lock.name}, and {@code locksmith.token} for losses on a fencing store. An acquire and a
 * release are made the current observation while they run, so the store driver's own spans (a
 * Lettuce command, a JDBC statement) nest under them; renewals run batched on the watchdog's thread
 * and are never made current.
 */
public final class ObservationLockObserver implements LockObserver {

  /** Observation names, one per operation. */
  public static final String ACQUIRE = "locksmith.lock.acquire";

  /** The wait inside an acquire. */
  public static final String WAIT = "locksmith.lock.wait";

  /** A renewal by the watchdog. */
  public static final String RENEWAL = "locksmith.lock.renewal";

  /** A release by the holder. */
  public static final String RELEASE = "locksmith.lock.release";

  /** A lease lost before its holder released it. */
  public static final String LOST = "locksmith.lock.lost";

  private final ObservationRegistry registry;
  // The waits in progress on this thread, innermost last: waitStarted and waitEnded of one wait
  // run on the acquiring thread, inside its acquire.
  private final ThreadLocal<Deque<Observation.Scope>> waits =
      ThreadLocal.withInitial(ArrayDeque::new);

  /** Observes into {@code registry}. */
  public ObservationLockObserver(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Span started(Operation operation, String store, String lockName) {
    if (registry.isNoop()) {
      return Span.NONE;
    }
    String name =
        switch (operation) {
          case ACQUIRE -> ACQUIRE;
          case RENEWAL -> RENEWAL;
          case RELEASE -> RELEASE;
        };
    Observation observation = observation(name, store, lockName).start();
    if (operation == Operation.RENEWAL) {
      return outcome -> stop(observation, outcome);
    }
    Observation.Scope scope = observation.openScope();
    return outcome -> {
      scope.close();
      stop(observation, outcome);
    };
  }

  @Override
  public void waitStarted(String store, String lockName) {
    if (registry.isNoop()) {
      return;
    }
    waits.get().addLast(observation(WAIT, store, lockName).start().openScope());
  }

  @Override
  public void waitEnded(String store, String lockName, AcquireOutcome outcome, Duration waited) {
    Deque<Observation.Scope> open = waits.get();
    Observation.Scope scope = open.pollLast();
    if (open.isEmpty()) {
      waits.remove();
    }
    if (scope != null) {
      scope.close();
      stop(scope.getCurrentObservation(), outcome);
    }
  }

  @Override
  public void leaseLost(String store, Lease lease, LeaseLostException reason) {
    if (registry.isNoop()) {
      return;
    }
    Observation lost =
        observation(LOST, store, lease.name())
            .lowCardinalityKeyValue("locksmith.loss", reason.kind().name().toLowerCase(Locale.ROOT))
            .start();
    tokenOf(lease).ifPresent(t -> lost.highCardinalityKeyValue("locksmith.token", t));
    lost.error(reason);
    lost.stop();
  }

  private Observation observation(String name, String store, String lockName) {
    Supplier<Observation.Context> context = Observation.Context::new;
    return Observation.createNotStarted(name, context, registry)
        // Span names stay low-cardinality: the lock's name is a key of the span, not its name.
        .contextualName("lock " + name.substring("locksmith.lock.".length()))
        .lowCardinalityKeyValue("locksmith.store", StoreTag.of(store))
        .highCardinalityKeyValue("locksmith.lock.name", lockName);
  }

  private static void stop(Observation observation, Outcome outcome) {
    observation.lowCardinalityKeyValue(
        "locksmith.outcome", ((Enum<?>) outcome).name().toLowerCase(Locale.ROOT));
    observation.stop();
  }

  private static Optional<String> tokenOf(Lease lease) {
    try {
      return Optional.of(Long.toString(lease.fencingToken()));
    } catch (UnsupportedCapabilityException noFencing) {
      return Optional.empty();
    }
  }
}
