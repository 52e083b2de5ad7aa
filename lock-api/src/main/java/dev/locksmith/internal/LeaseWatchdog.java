package dev.locksmith.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The one watchdog of a client: it renews its leases and notices their expiry, with two threads
 * however many leases the client holds, never a thread or a timer per lock.
 *
 * <p>A sweep runs when the earliest lease needs attention (a renewal due, an expiry to report),
 * looks at every watched lease, hands due renewals to the renewal thread, and schedules itself for
 * the next earliest deadline, never sooner than {@link #MIN_SWEEP_INTERVAL_NANOS} after the last,
 * so that many leases coalesce into few sweeps. Acquiring and releasing only add a lease to and
 * remove it from a concurrent set: a sweep already scheduled earlier is not touched, so the hot
 * path takes no scheduler lock. Renewals run one at a time on their own thread, so a store that
 * hangs delays renewals but not the sweep that reports expiries. {@link
 * dev.locksmith.Lease#isValid()} never depends on either thread.
 */
final class LeaseWatchdog {

  /** The shortest time between two sweeps: renewals and loss reports may be this late. */
  static final long MIN_SWEEP_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** No deadline. */
  static final long NONE = Long.MAX_VALUE;

  private static final AtomicInteger CLIENTS = new AtomicInteger();

  private final Set<EngineLease> watched = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor sweeper;
  private final ThreadPoolExecutor renewals;

  // When the next sweep is scheduled (System.nanoTime()), NONE if none is; written under `this`.
  private volatile long sweepAt = NONE;
  private @Nullable ScheduledFuture<?> sweep;
  private volatile boolean shutdown;

  LeaseWatchdog() {
    int client = CLIENTS.incrementAndGet();
    sweeper = new ScheduledThreadPoolExecutor(1, daemon("locksmith-renewer-" + client + "-sweep"));
    sweeper.setRemoveOnCancelPolicy(true);
    sweeper.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    renewals =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            daemon("locksmith-renewer-" + client + "-store"));
    renewals.allowCoreThreadTimeOut(true);
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Starts watching {@code lease}, whose first deadline is {@code deadline}. */
  void watch(EngineLease lease, long deadline) {
    watched.add(lease);
    wakeBy(deadline);
  }

  /** Stops watching {@code lease} (released or lost). */
  void unwatch(EngineLease lease) {
    watched.remove(lease);
  }

  /** Makes sure a sweep runs no later than {@code deadline}. */
  void wakeBy(long deadline) {
    long at = sweepAt;
    if (at != NONE && at - deadline <= 0) {
      return; // The common case: a sweep is already due sooner.
    }
    synchronized (this) {
      if (shutdown || (sweepAt != NONE && sweepAt - deadline <= 0)) {
        return;
      }
      if (sweep != null) {
        sweep.cancel(false);
      }
      sweepAt = deadline;
      sweep =
          sweeper.schedule(
              () -> sweep(System.nanoTime()), deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    }
  }

  /** When the next sweep is scheduled, {@link #NONE} if none is. */
  long nextSweepAt() {
    return sweepAt;
  }

  /** Looks at every watched lease at {@code now} and schedules the next sweep. */
  void sweep(long now) {
    synchronized (this) {
      sweepAt = NONE;
      sweep = null;
    }
    long next = NONE;
    for (EngineLease lease : watched) {
      long d = lease.tick(now);
      if (d != NONE && (next == NONE || d - next < 0)) {
        next = d;
      }
    }
    if (next != NONE) {
      long earliest = now + MIN_SWEEP_INTERVAL_NANOS;
      wakeBy(next - earliest < 0 ? earliest : next);
    }
  }

  /** Runs a renewal on the renewal thread. */
  void renew(Runnable renewal) {
    try {
      renewals.execute(renewal);
    } catch (RejectedExecutionException closing) {
      // The client is closing or crashing: its leases are released or left to expire.
    }
  }

  /** Runs a best-effort cleanup (a release nobody waits for) on the renewal thread. */
  void execute(Runnable task) {
    renewals.execute(task);
  }

  boolean isShutdown() {
    return shutdown;
  }

  /** How many sweeps are scheduled: one at most, since a sweep moved earlier is removed. */
  int scheduledSweeps() {
    return sweeper.getQueue().size();
  }

  /** How many leases are watched plus renewals queued: zero once everything was released. */
  int pending() {
    return watched.size() + renewals.getQueue().size();
  }

  void shutdown() {
    synchronized (this) {
      shutdown = true;
    }
    sweeper.shutdownNow();
    renewals.shutdownNow();
    watched.clear();
  }
}
