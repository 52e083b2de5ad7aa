package dev.locksmith.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one scheduler of a client that renews its leases and notices their expiry: two daemon
 * threads, however many leases the client holds, never a thread per lock.
 *
 * <p>Each lease schedules its own next renewal and expiry check here. A renewal blocks a thread for
 * one store round trip; if a store hangs, the second thread keeps expiry checks going, and {@link
 * dev.locksmith.Lease#isValid()} never depends on this scheduler at all.
 */
final class LeaseRenewer {

  private static final AtomicInteger CLIENTS = new AtomicInteger();

  private final ScheduledThreadPoolExecutor scheduler;

  LeaseRenewer() {
    int client = CLIENTS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "locksmith-renewer-" + client + "-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    scheduler = new ScheduledThreadPoolExecutor(2, factory);
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  void execute(Runnable task) {
    scheduler.execute(task);
  }

  boolean isShutdown() {
    return scheduler.isShutdown();
  }

  /** How many tasks are scheduled: the kit checks that an abandoned acquire leaves none behind. */
  int pendingTasks() {
    return scheduler.getQueue().size();
  }

  void shutdown() {
    scheduler.shutdownNow();
  }
}
