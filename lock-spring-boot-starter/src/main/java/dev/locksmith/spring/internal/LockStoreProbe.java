package dev.locksmith.spring.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.spring.LocksmithProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The check behind the {@code locksmith} health indicator, on either Spring Boot line: UP when the
 * store answers a read of a probe lock within the timeout, DOWN with the store and the reason
 * otherwise (and {@code since}, the start of the outage). {@link LockStoreHealthIndicator} turns
 * its {@link Answer} into the Actuator's {@code Health} of the application's Boot line.
 *
 * <p>It is DOWN too while the client's renewals lag past the threshold (see {@link
 * RenewalLagWindow}): the store answers, but the holder's leases are about to run out before their
 * renewals reach it.
 *
 * <p>The probe lock is only read, never acquired, so checking health never takes a lock from
 * anyone. The read runs on its own daemon thread, so a store that hangs makes the check DOWN after
 * the timeout instead of hanging the health endpoint. Each check's answer or failure goes to the
 * application's {@link StoreOutage}, like every locked call's, so an outage that only the health
 * check sees is logged too, once.
 */
public final class LockStoreProbe implements AutoCloseable {

  private static final String CALL = "Health check";

  private final LockClient client;
  private final StoreOutage outage;
  private final String probeLock;
  private final Duration timeout;
  private final RenewalLagWindow renewalLag;
  private final double lagThreshold;
  private final ExecutorService reader =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "locksmith-health");
            t.setDaemon(true);
            return t;
          });

  /**
   * The application's probe: {@code locksmith.health.*} from {@code properties}, and the
   * application's outage log if it has one.
   */
  public static LockStoreProbe of(
      LockClient client,
      LocksmithProperties properties,
      @Nullable StoreOutage outage,
      RenewalLagWindow renewalLag) {
    LocksmithProperties.Health health = properties.getHealth();
    return new LockStoreProbe(
        client,
        outage != null ? outage : new StoreOutage("the application's LockClient"),
        health.getProbeLock(),
        health.getTimeout(),
        renewalLag,
        health.getRenewalLagThreshold());
  }

  /**
   * Checks {@code client}, whose store and outages {@code outage} tracks; renewal lag unchecked.
   */
  public LockStoreProbe(LockClient client, StoreOutage outage, String probeLock, Duration timeout) {
    this(client, outage, probeLock, timeout, new RenewalLagWindow(Duration.ofMinutes(1)), 1e9);
  }

  /**
   * Checks {@code client}, whose store and outages {@code outage} tracks, and reports DOWN while
   * {@code renewalLag} saw a renewal lag past {@code lagThreshold} (a fraction of the lease).
   */
  public LockStoreProbe(
      LockClient client,
      StoreOutage outage,
      String probeLock,
      Duration timeout,
      RenewalLagWindow renewalLag,
      double lagThreshold) {
    this.client = client;
    this.outage = outage;
    this.probeLock = probeLock;
    this.timeout = timeout;
    this.renewalLag = renewalLag;
    this.lagThreshold = lagThreshold;
  }

  /**
   * What the store's health is: UP or DOWN, with details in the order they are shown.
   *
   * @param up whether the store answered in time and renewals do not lag
   * @param details {@code store}, and {@code reason}, {@code since} and {@code renewalLag} where
   *     they apply
   */
  public record Answer(boolean up, Map<String, Object> details) {}

  /** Reads the probe lock once, waiting at most the timeout; never throws. */
  public Answer check() {
    long started = StoreOutage.now();
    Future<Boolean> read = reader.submit(() -> client.lock(probeLock).isLocked());
    try {
      read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      outage.answered(started);
      Optional<RenewalLagWindow.Worst> lag = renewalLag.worst();
      if (lag.isPresent() && lag.get().fraction() > lagThreshold) {
        Map<String, Object> down = new LinkedHashMap<>();
        down.put("store", outage.store());
        down.put(
            "reason",
            String.format(
                Locale.ROOT,
                "renewals lag: one was sent %.2f of its lease late (lock '%s'), past the"
                    + " threshold of %.2f; locks will be lost at the next pause",
                lag.get().fraction(),
                lag.get().lockName(),
                lagThreshold));
        down.put("renewalLag", lag.get().fraction());
        return new Answer(false, down);
      }
      Map<String, Object> up = new LinkedHashMap<>();
      up.put("store", outage.store());
      lag.ifPresent(w -> up.put("renewalLag", w.fraction()));
      return new Answer(true, up);
    } catch (TimeoutException e) {
      read.cancel(true);
      String reason = "the store did not answer within " + timeout.toMillis() + " ms";
      outage.failed(started, CALL, new LockStoreException(reason));
      return down(reason);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof LockStoreException) {
        outage.failed(started, CALL, cause);
      }
      return down(StoreOutage.cause(cause));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      read.cancel(true);
      return down("interrupted while waiting for the store");
    }
  }

  private Answer down(String reason) {
    Map<String, Object> down = new LinkedHashMap<>();
    down.put("store", outage.store());
    down.put("reason", reason);
    outage.downSince().ifPresent(since -> down.put("since", since.toString()));
    return new Answer(false, down);
  }

  /** Stops the probe's reader thread. */
  @Override
  public void close() {
    reader.shutdownNow();
  }
}
