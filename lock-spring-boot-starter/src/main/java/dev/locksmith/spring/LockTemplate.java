package dev.locksmith.spring;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.spring.internal.LockedCall;
import dev.locksmith.spring.internal.StoreOutage;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs a piece of code while holding a distributed lock, for code that does not want an annotation;
 * the starter defines one when it defines a {@link LockClient}.
 *
 * <pre>{@code
 * Receipt r = lockTemplate.execute("order:" + id, Duration.ofSeconds(5), () -> ship(id));
 * Optional<Report> maybe = lockTemplate.tryExecute("report", Duration.ZERO, this::buildReport);
 * }</pre>
 *
 * <p>It behaves like {@link Locked}: the lease is renewed while the code runs, is reachable with
 * {@link LockContext#currentLease()}, and is released when the code returns or throws (or, with
 * {@link #withHoldAtLeast}, kept taken for a minimum). A lease lost while the code runs is logged
 * at WARN (and interrupts the code with {@code locksmith.on-lost=INTERRUPT}); the release then
 * throws {@link dev.locksmith.LeaseLostException} unless the code threw. A store failure while
 * acquiring throws {@link dev.locksmith.LockStoreException} and the code does not run (logged at
 * DEBUG; an outage of the store is logged once at WARN when it starts and once at INFO when it
 * ends); an interrupt while waiting throws {@link dev.locksmith.LockException} with the interrupt
 * flag kept. Names, waits and lease times are checked like the engine's ({@link
 * IllegalArgumentException} naming the problem). Instances are immutable and thread-safe.
 */
public final class LockTemplate {

  private final LockedCall call;
  private final @Nullable Duration leaseTime;
  private final Duration holdAtLeast;

  /** A template on {@code client} that logs lost leases and records no observations. */
  public LockTemplate(LockClient client) {
    this(client, LostLeaseAction.LOG, ObservationRegistry.NOOP);
  }

  /**
   * A template on {@code client}; {@code onLost} says what a lease lost while the code runs does,
   * and each run is an observation in {@code observations}.
   */
  public LockTemplate(LockClient client, LostLeaseAction onLost, ObservationRegistry observations) {
    this(client, onLost, observations, new StoreOutage("the lock store"));
  }

  /** The auto-configured template, which shares the application's outage log and health. */
  LockTemplate(
      LockClient client,
      LostLeaseAction onLost,
      ObservationRegistry observations,
      StoreOutage outage) {
    this(new LockedCall(client, onLost, observations, outage), null, Duration.ZERO);
  }

  private LockTemplate(LockedCall call, @Nullable Duration leaseTime, Duration holdAtLeast) {
    this.call = call;
    this.leaseTime = leaseTime;
    this.holdAtLeast = holdAtLeast;
  }

  /**
   * A copy whose locks get leases of {@code leaseTime} (renewed while the code runs).
   *
   * @throws IllegalArgumentException if not positive or longer than the longest lease
   */
  public LockTemplate withLeaseTime(Duration leaseTime) {
    Objects.requireNonNull(leaseTime, "leaseTime must not be null");
    LockOptions.builder().leaseTime(leaseTime); // the engine's check
    return new LockTemplate(call, leaseTime, holdAtLeast);
  }

  /**
   * A copy that keeps each lock taken until at least {@code holdAtLeast} after it was acquired
   * (ShedLock's {@code lockAtLeastFor}); see {@link dev.locksmith.Lease#releaseHeldAtLeast}.
   *
   * @throws IllegalArgumentException if negative
   */
  public LockTemplate withHoldAtLeast(Duration holdAtLeast) {
    Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
    if (holdAtLeast.isNegative()) {
      throw new IllegalArgumentException("holdAtLeast must not be negative, was " + holdAtLeast);
    }
    return new LockTemplate(call, leaseTime, holdAtLeast);
  }

  /**
   * Waits at most {@code wait} for lock {@code name}, then runs {@code action} holding it and
   * returns what it returned.
   *
   * @throws dev.locksmith.LockTimeoutException if the lock was still taken after {@code wait};
   *     {@code action} did not run
   */
  public <T> @Nullable T execute(String name, Duration wait, Supplier<@Nullable T> action) {
    return call.run(request(name, wait, OnBusy.FAIL), lease -> action.get(), () -> null);
  }

  /**
   * Waits at most {@code wait} for lock {@code name}, then runs {@code action} holding it; empty if
   * the lock was still taken (the action did not run) or the action returned null.
   */
  public <T> Optional<T> tryExecute(String name, Duration wait, Supplier<@Nullable T> action) {
    Optional<T> result =
        call.run(
            request(name, wait, OnBusy.SKIP),
            lease -> Optional.ofNullable(action.get()),
            Optional::empty);
    return Objects.requireNonNull(result);
  }

  /**
   * Waits at most {@code wait} for lock {@code name}, then runs {@code action} holding it.
   *
   * @return whether the action ran (false: the lock was still taken after {@code wait})
   */
  public boolean run(String name, Duration wait, Runnable action) {
    Boolean ran =
        call.run(
            request(name, wait, OnBusy.SKIP),
            lease -> {
              action.run();
              return true;
            },
            () -> false);
    return Boolean.TRUE.equals(ran);
  }

  private LockedCall.Request request(String name, Duration wait, OnBusy onBusy) {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(wait, "wait must not be null");
    return new LockedCall.Request(
        name,
        "(LockTemplate)",
        "LockTemplate action",
        wait,
        onBusy,
        leaseTime,
        holdAtLeast,
        LockedCall.OnStoreFailure.THROW);
  }
}
