package dev.locksmith.shedlock.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's clock-driven side: one daemon thread that ends holds at their deadline ({@code
 * lockAtMostFor} reached, or {@code lockAtLeastFor} served after an unlock), and the set of holds
 * waiting for one, so that a {@code lock()} on the same name settles a due hold at once instead of
 * finding it taken because the timer thread is late.
 */
public final class HoldTimers implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HoldTimers.class);

  private final ScheduledThreadPoolExecutor scheduler;
  private final Set<Hold> waiting = ConcurrentHashMap.newKeySet();

  /** Timers on a thread named {@code threadName}, started when first needed. */
  public HoldTimers(String threadName) {
    scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    // Most holds are unlocked long before their lockAtMostFor: drop their timers at once.
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /**
   * Calls {@link Hold#onTimer()} at {@code deadlineNanos} ({@link System#nanoTime()}); null if the
   * timers were closed, in which case the store's own lease is what ends the hold.
   */
  @Nullable ScheduledFuture<?> schedule(Hold hold, long deadlineNanos) {
    waiting.add(hold);
    try {
      return scheduler.schedule(
          hold::onTimer, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      waiting.remove(hold);
      log.debug("Provider closed: lock '{}' ends with its store lease", hold.storeName());
      return null;
    }
  }

  /** The hold no longer waits for a timer. */
  void forget(Hold hold) {
    waiting.remove(hold);
  }

  /** Runs the due action of every waiting hold on {@code storeName} now, on the calling thread. */
  public void settleDue(String storeName) {
    if (waiting.isEmpty()) {
      return;
    }
    for (Hold hold : waiting) {
      if (hold.storeName().equals(storeName)) {
        hold.settleIfDue();
      }
    }
  }

  /**
   * Stops the thread. Unlocked holds still waiting for their lockAtLeastFor are handed to the store
   * ({@link Hold#handOff()}), so that closing the client afterwards does not free them early; held
   * ones end with their store lease, or when the client closes.
   */
  @Override
  public void close() {
    scheduler.shutdownNow();
    for (Hold hold : waiting) {
      hold.handOff();
    }
    waiting.clear();
  }
}
