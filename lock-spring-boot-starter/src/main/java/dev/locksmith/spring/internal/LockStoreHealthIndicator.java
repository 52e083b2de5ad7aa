package dev.locksmith.spring.internal;

import dev.locksmith.LockClient;
import java.time.Duration;
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
 * the timeout, DOWN with the store and the reason otherwise.
 *
 * <p>The probe lock is only read, never acquired, so checking health never takes a lock from
 * anyone. The read runs on its own daemon thread, so a store that hangs makes the check DOWN after
 * the timeout instead of hanging the health endpoint.
 */
public final class LockStoreHealthIndicator implements HealthIndicator, DisposableBean {

  private final LockClient client;
  private final String store;
  private final String probeLock;
  private final Duration timeout;
  private final ExecutorService reader =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "locksmith-health");
            t.setDaemon(true);
            return t;
          });

  /** Checks {@code client}, described in the details as {@code store}. */
  public LockStoreHealthIndicator(
      LockClient client, String store, String probeLock, Duration timeout) {
    this.client = client;
    this.store = store;
    this.probeLock = probeLock;
    this.timeout = timeout;
  }

  @Override
  public Health health() {
    Future<Boolean> read = reader.submit(() -> client.lock(probeLock).isLocked());
    try {
      read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return Health.up().withDetail("store", store).build();
    } catch (TimeoutException e) {
      read.cancel(true);
      return down("the store did not answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return down(String.valueOf(cause.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      read.cancel(true);
      return down("interrupted while waiting for the store");
    }
  }

  private Health down(String reason) {
    return Health.down().withDetail("store", store).withDetail("reason", reason).build();
  }

  @Override
  public void destroy() {
    reader.shutdownNow();
  }
}
