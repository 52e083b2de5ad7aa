package dev.locksmith.spring.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The {@code locksmith} health indicator: UP when the store answers a read of a probe lock within
 * the timeout, DOWN with the store and the reason otherwise (and {@code since}, the start of the
 * outage).
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
public final class LockStoreHealthIndicator implements HealthIndicator, DisposableBean {

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
   * Checks {@code client}, whose store and outages {@code outage} tracks; renewal lag unchecked.
   */
  public LockStoreHealthIndicator(
      LockClient client, StoreOutage outage, String probeLock, Duration timeout) {
    this(client, outage, probeLock, timeout, new RenewalLagWindow(Duration.ofMinutes(1)), 1e9);
  }

  /**
   * Checks {@code client}, whose store and outages {@code outage} tracks, and reports DOWN while
   * {@code renewalLag} saw a renewal lag past {@code lagThreshold} (a fraction of the lease).
   */
  public LockStoreHealthIndicator(
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

  @Override
  public Health health() {
    long started = StoreOutage.now();
    Future<Boolean> read = reader.submit(() -> client.lock(probeLock).isLocked());
    try {
      read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      outage.answered(started);
      Optional<RenewalLagWindow.Worst> lag = renewalLag.worst();
      if (lag.isPresent() && lag.get().fraction() > lagThreshold) {
        return Health.down()
            .withDetail("store", outage.store())
            .withDetail(
                "reason",
                String.format(
                    Locale.ROOT,
                    "renewals lag: one was sent %.2f of its lease late (lock '%s'), past the"
                        + " threshold of %.2f; locks will be lost at the next pause",
                    lag.get().fraction(),
                    lag.get().lockName(),
                    lagThreshold))
            .withDetail("renewalLag", lag.get().fraction())
            .build();
      }
      Health.Builder up = Health.up().withDetail("store", outage.store());
      lag.ifPresent(w -> up.withDetail("renewalLag", w.fraction()));
      return up.build();
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

  private Health down(String reason) {
    Health.Builder down =
        Health.down().withDetail("store", outage.store()).withDetail("reason", reason);
    outage.downSince().ifPresent(since -> down.withDetail("since", since.toString()));
    return down.build();
  }

  @Override
  public void destroy() {
    reader.shutdownNow();
  }
}
