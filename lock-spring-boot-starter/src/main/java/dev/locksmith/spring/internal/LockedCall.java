package dev.locksmith.spring.internal;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockException;
import dev.locksmith.LockStoreException;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.spring.Locked;
import dev.locksmith.spring.LostLeaseAction;
import dev.locksmith.spring.OnBusy;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs code while holding a lock: acquire as the request says, make the lease current, watch it for
 * loss, release (or leave it held for its minimum), inside an {@link Observation}. The one
 * implementation behind {@link Locked} and {@link dev.locksmith.spring.LockTemplate}.
 *
 * <p>Every answer and every failure of the store is reported to the application's {@link
 * StoreOutage}, which logs an outage once when it starts and once when it ends; a single call that
 * meets a store failure is logged at DEBUG only. The failure still reaches the caller as a {@link
 * LockStoreException}, except for scheduled methods, which have no caller to tell: their run is
 * skipped.
 */
public final class LockedCall {

  /** The observation's name, and the timer Micrometer makes of it. */
  public static final String OBSERVATION = "locksmith.locked";

  // Named for what users configure: logging.level.dev.locksmith.spring.Locked
  private static final Logger log = LoggerFactory.getLogger(Locked.class);

  /**
   * What to lock and how.
   *
   * @param name the lock's name
   * @param template the name before evaluation, a low-cardinality tag of the observation
   * @param caller what runs, for logs ({@code OrderService.ship(long)})
   * @param waitFor how long to wait before the lock counts as busy
   * @param onBusy what to do if it is busy then
   * @param leaseTime the lease time, or null for the client's
   * @param holdAtLeast how long the lock stays taken after the acquire at least (zero for none)
   * @param onStoreFailure what a store failure while acquiring does: throw, or skip the call
   *     (scheduled methods, whose exceptions only the scheduler's error log would see)
   */
  public record Request(
      String name,
      String template,
      String caller,
      Duration waitFor,
      OnBusy onBusy,
      @Nullable Duration leaseTime,
      Duration holdAtLeast,
      OnStoreFailure onStoreFailure) {}

  /** What a call does when the store fails while it acquires the lock. */
  public enum OnStoreFailure {
    /** Throw the {@link LockStoreException} to the caller. */
    THROW,
    /**
     * Skip the call, as if the lock were busy: for scheduled methods, whose exceptions nobody but
     * the scheduler's error log would see (at ERROR with a stack trace, every tick).
     */
    SKIP
  }

  /** The code to run while holding the lock. */
  @FunctionalInterface
  public interface Body<T, X extends Throwable> {
    /** Runs with {@code lease} held. */
    @Nullable T run(Lease lease) throws X;
  }

  private final LockClient client;
  private final LostLeaseAction onLost;
  private final ObservationRegistry observations;
  private final StoreOutage outage;

  /**
   * Locks on {@code client}; {@code onLost} says what a loss during the body does, and the store's
   * answers and failures go to {@code outage}.
   */
  public LockedCall(
      LockClient client,
      LostLeaseAction onLost,
      ObservationRegistry observations,
      StoreOutage outage) {
    this.client = Objects.requireNonNull(client, "client must not be null");
    this.onLost = Objects.requireNonNull(onLost, "onLost must not be null");
    this.observations = Objects.requireNonNull(observations, "observations must not be null");
    this.outage = Objects.requireNonNull(outage, "outage must not be null");
  }

  /**
   * Runs {@code body} holding the lock of {@code request}, or returns {@code skipped.get()} without
   * running it if the lock is busy and the request says {@link OnBusy#SKIP}, or if the store failed
   * and the request says {@link OnStoreFailure#SKIP}.
   *
   * @throws LockTimeoutException if the lock is busy and the request says {@link OnBusy#FAIL}
   * @throws LockException if the thread was interrupted while waiting (the flag is kept)
   * @throws LockStoreException if the store failed while acquiring (unless the request skips)
   * @throws LeaseLostException if the lease was lost while {@code body} ran and {@code body} itself
   *     returned normally
   */
  public <T, X extends Throwable> @Nullable T run(
      Request request, Body<T, X> body, Supplier<@Nullable T> skipped) throws X {
    Observation observation =
        Observation.createNotStarted(OBSERVATION, observations)
            .contextualName("locked " + request.template())
            .lowCardinalityKeyValue("locksmith.lock", request.template())
            .highCardinalityKeyValue("locksmith.lock.name", request.name())
            .lowCardinalityKeyValue("locksmith.caller", request.caller())
            .lowCardinalityKeyValue("locksmith.outcome", "error")
            .start();
    try (Observation.Scope scope = observation.openScope()) {
      long started = StoreOutage.now();
      Lease lease;
      try {
        lease = acquire(request);
      } catch (LockStoreException e) {
        outage.failed(started, callDescription(request), e);
        if (request.onStoreFailure() == OnStoreFailure.THROW) {
          throw e;
        }
        observation.error(e);
        return skipped.get();
      } catch (LockTimeoutException e) {
        outage.answered(started);
        throw e;
      }
      outage.answered(started);
      if (lease == null) {
        observation.lowCardinalityKeyValue("locksmith.outcome", "skipped");
        log.debug("Skipped {}: lock '{}' is taken", request.caller(), request.name());
        return skipped.get();
      }
      observation.lowCardinalityKeyValue("locksmith.outcome", "ran");
      return runHolding(request, lease, body);
    } catch (LockTimeoutException e) {
      observation.lowCardinalityKeyValue("locksmith.outcome", "busy");
      observation.error(e);
      throw e;
    } catch (Throwable e) {
      observation.error(e);
      throw e;
    } finally {
      observation.stop();
    }
  }

  private @Nullable Lease acquire(Request request) {
    DistributedLock lock;
    try {
      lock = client.lock(request.name());
      if (request.leaseTime() != null) {
        lock = lock.withLeaseTime(request.leaseTime());
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "lock name '" + request.name() + "' of " + request.caller() + ": " + e.getMessage(), e);
    }
    try {
      switch (request.onBusy()) {
        case WAIT:
          return lock.acquire();
        case FAIL:
          return lock.acquire(request.waitFor());
        default:
          return request.waitFor().isZero()
              ? lock.tryAcquire().orElse(null)
              : lock.tryAcquire(request.waitFor()).orElse(null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockException(
          "interrupted while waiting for lock '" + request.name() + "' for " + request.caller(), e);
    }
  }

  private <T, X extends Throwable> @Nullable T runHolding(
      Request request, Lease lease, Body<T, X> body) throws X {
    LossWatch watch = new LossWatch(request, Thread.currentThread(), onLost);
    lease.onLost(watch);
    Lease previous = CurrentLease.bind(lease);
    Throwable failure = null;
    try {
      return body.run(lease);
    } catch (Throwable e) {
      failure = e;
      throw e;
    } finally {
      watch.finished();
      CurrentLease.restore(previous);
      end(request, lease, failure);
    }
  }

  /** Releases, or leaves held for the minimum; a lost lease throws unless the body threw. */
  private void end(Request request, Lease lease, @Nullable Throwable failure) {
    long started = StoreOutage.now();
    try {
      if (request.holdAtLeast().isZero()) {
        lease.release();
      } else {
        lease.releaseHeldAtLeast(request.holdAtLeast());
      }
      outage.answered(started);
    } catch (LeaseLostException e) {
      // Not an answer: the engine may have known of the loss (a lease that ran out) on its own.
      if (failure == null) {
        throw e;
      }
      failure.addSuppressed(e);
    } catch (LockStoreException e) {
      outage.failed(
          started,
          "Release of lock '"
              + request.name()
              + "' after "
              + request.caller()
              + " (it frees when its lease runs out)",
          e);
      if (failure != null) {
        failure.addSuppressed(e);
      }
    }
  }

  private static String callDescription(Request request) {
    return "Lock '" + request.name() + "' for " + request.caller();
  }

  /** Logs a loss while the body runs and, if asked, interrupts the body's thread. */
  private static final class LossWatch implements dev.locksmith.LeaseLostListener {
    private final Request request;
    private final Thread runner;
    private final LostLeaseAction action;
    private boolean running = true; // guarded by this

    LossWatch(Request request, Thread runner, LostLeaseAction action) {
      this.request = request;
      this.runner = runner;
      this.action = action;
    }

    @Override
    public void leaseLost(Lease lease, LeaseLostException reason) {
      synchronized (this) {
        if (!running) {
          return;
        }
        boolean interrupt = action == LostLeaseAction.INTERRUPT;
        log.warn(
            "Lock '{}' was lost while {} ran on thread {}: {}{}",
            request.name(),
            request.caller(),
            runner.getName(),
            reason.reason(),
            interrupt ? "; interrupting it" : "");
        if (interrupt) {
          runner.interrupt();
        }
      }
    }

    synchronized void finished() {
      running = false;
    }
  }
}
