package dev.locksmith.jdbc.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The one background thread on which every open JDBC store of the JVM sweeps its table, each at its
 * own interval. A sweep is a few bounded DELETEs, so one daemon thread serves any number of stores;
 * it exists only while a store is open, so an application that closes its stores leaves no thread
 * behind. Sweeping in the background, rather than within lock calls, keeps the sweep's statements
 * off every caller's latency, and still sweeps while a client sits idle.
 */
public final class SweepSchedule {

  private static @Nullable ScheduledThreadPoolExecutor executor;
  private static int stores;

  private SweepSchedule() {}

  /**
   * Runs {@code sweep} every {@code interval} until the returned handle is closed; the first run
   * comes after a random part of the interval, so that clients started together do not sweep
   * together. {@code sweep} must not throw.
   */
  public static synchronized AutoCloseable every(Duration interval, Runnable sweep) {
    if (executor == null) {
      ScheduledThreadPoolExecutor e =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread thread = new Thread(r, "locksmith-jdbc-sweep");
                thread.setDaemon(true);
                return thread;
              });
      e.setRemoveOnCancelPolicy(true);
      executor = e;
    }
    stores++;
    long period = interval.toNanos();
    long first = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
    // A task that throws is never run again: keep the schedule whatever one sweep does.
    Runnable guarded =
        () -> {
          try {
            sweep.run();
          } catch (RuntimeException e) {
            // The store reports its own failures; the next sweep tries again.
          }
        };
    ScheduledFuture<?> task =
        executor.scheduleWithFixedDelay(guarded, first, period, TimeUnit.NANOSECONDS);
    AtomicBoolean stopped = new AtomicBoolean();
    return () -> {
      if (stopped.compareAndSet(false, true)) {
        stop(task);
      }
    };
  }

  private static synchronized void stop(ScheduledFuture<?> task) {
    task.cancel(false);
    if (--stores == 0 && executor != null) {
      executor.shutdown();
      executor = null;
    }
  }
}
