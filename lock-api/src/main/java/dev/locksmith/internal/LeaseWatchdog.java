package dev.locksmith.internal;

import dev.locksmith.spi.LeaseExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * path takes no scheduler lock. Renewals run on their own thread, so a store that hangs delays
 * renewals but not the sweep that reports expiries; the renewals due together go to the store in
 * one {@link dev.locksmith.spi.LockStore#extendAll batch}, so that one thread keeps up with tens of
 * thousands of leases where one round trip per lease could not (10,000 leases of 5 s need 6,000
 * renewals a second). {@link dev.locksmith.Lease#isValid()} never depends on either thread.
 */
final class LeaseWatchdog {

  /** The shortest time between two sweeps: renewals and loss reports may be this late. */
  static final long MIN_SWEEP_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** No deadline. */
  static final long NONE = Long.MAX_VALUE;

  private static final AtomicInteger CLIENTS = new AtomicInteger();

  /** The most renewals sent to the store in one batch. */
  static final int MAX_BATCH = 1000;

  private final StoreGateway gateway;
  private final Set<EngineLease> watched = ConcurrentHashMap.newKeySet();
  private final Queue<EngineLease> dueRenewals = new ConcurrentLinkedQueue<>();
  // Whether a run of renewQueued is queued or running on the renewal thread.
  private final AtomicBoolean renewalRunQueued = new AtomicBoolean();
  private final ScheduledThreadPoolExecutor sweeper;
  private final ThreadPoolExecutor renewals;

  // When the next sweep is scheduled (System.nanoTime()), NONE if none is; written under `this`.
  private volatile long sweepAt = NONE;
  private @Nullable ScheduledFuture<?> sweep;
  private volatile boolean shutdown;

  LeaseWatchdog(StoreGateway gateway) {
    this.gateway = gateway;
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

  /** Queues the due renewal of {@code lease}; the renewal thread renews what is queued. */
  void renew(EngineLease lease) {
    dueRenewals.add(lease);
    if (renewalRunQueued.compareAndSet(false, true)) {
      queueRenewalRun();
    }
  }

  private void queueRenewalRun() {
    try {
      renewals.execute(this::renewQueued);
    } catch (RejectedExecutionException closing) {
      // The client is closing or crashing: its leases are released or left to expire.
    }
  }

  /**
   * Renews every queued lease, {@link #MAX_BATCH} at a time, until none is queued: the leases a
   * sweep queues while a batch is with the store go together in the next one.
   */
  private void renewQueued() {
    try {
      List<EngineLease> batch = new ArrayList<>();
      EngineLease lease;
      while ((lease = dueRenewals.poll()) != null) {
        batch.add(lease);
        if (batch.size() == MAX_BATCH) {
          renewBatch(batch);
          batch.clear();
        }
      }
      if (!batch.isEmpty()) {
        renewBatch(batch);
      }
    } finally {
      renewalRunQueued.set(false);
    }
    // A lease queued between the last poll and the line above saw a run queued and left its
    // renewal to this one: queue another run for it, unless one was queued meanwhile.
    if (!dueRenewals.isEmpty() && renewalRunQueued.compareAndSet(false, true)) {
      queueRenewalRun();
    }
  }

  private void renewBatch(List<EngineLease> due) {
    List<EngineLease> leases = new ArrayList<>(due.size());
    List<LeaseExtension> extensions = new ArrayList<>(due.size());
    for (EngineLease lease : due) {
      LeaseExtension extension = lease.renewal();
      if (extension != null) {
        leases.add(lease);
        extensions.add(extension);
      }
    }
    if (leases.isEmpty()) {
      return;
    }
    long start = System.nanoTime();
    boolean[] held;
    try {
      held = gateway.extendAll(extensions);
    } catch (RuntimeException failure) {
      for (int i = 0; i < leases.size(); i++) {
        leases.get(i).renewalFailed(extensions.get(i), start, failure);
      }
      return;
    }
    for (int i = 0; i < leases.size(); i++) {
      leases.get(i).renewed(extensions.get(i), start, held[i]);
    }
  }

  /** Runs a best-effort cleanup (a release nobody waits for) on the renewal thread. */
  void execute(Runnable task) {
    renewals.execute(task);
  }

  /**
   * Runs a best-effort cleanup on the renewal thread {@code delayNanos} from now; nothing once the
   * watchdog is shut down.
   *
   * @throws RejectedExecutionException if it is shut down already
   */
  void executeAfter(Runnable task, long delayNanos) {
    sweeper.schedule(
        () -> {
          try {
            renewals.execute(task);
          } catch (RejectedExecutionException shutDownMeanwhile) {
            // The client closed or crashed: it gave up its cleanups.
          }
        },
        delayNanos,
        TimeUnit.NANOSECONDS);
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
