package dev.locksmith.zookeeper.internal;

import dev.locksmith.spi.StoreListener;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loss report for the engine (a hold's, or the session's), which must reach it exactly once and
 * before the store hands out a hold that the report could be taken for: the engine ends every lease
 * with the report's key, owner and token (a later hold of the same owner may carry the same token:
 * readers share theirs) or, for a session, every lease it has.
 *
 * <p>Whoever needs it delivered first delivers it: the store's event thread, where a watch or a
 * connection state queued it, or a store call on its way out, after its slot's monitor is let go,
 * that dropped the hold or is about to hand out a hold the report could hit ({@link #settle}). A
 * call that finds another thread delivering it waits until that thread is done, so that when the
 * call returns no report of an earlier hold is still in flight.
 */
final class Report {

  private static final Logger log = LoggerFactory.getLogger(Report.class);

  private static final int PENDING = 0;
  private static final int DELIVERING = 1;
  private static final int DONE = 2;

  private final SessionWatch session;
  private final Consumer<StoreListener> event;
  private final AtomicInteger state = new AtomicInteger(PENDING);
  private volatile @Nullable Thread deliverer;

  /** A report of {@code event} to the listener of {@code session}'s store, not delivered yet. */
  Report(SessionWatch session, Consumer<StoreListener> event) {
    this.session = session;
    this.event = event;
  }

  /** Delivers the report here unless another call has claimed it; returns once done either way. */
  void deliver() {
    if (!state.compareAndSet(PENDING, DELIVERING)) {
      return;
    }
    deliverer = Thread.currentThread();
    try {
      session.tell(event);
    } finally {
      deliverer = null;
      synchronized (this) {
        state.set(DONE);
        notifyAll();
      }
    }
  }

  /**
   * Makes sure the engine has the report before the caller goes on: delivers it here, or waits for
   * the thread that is delivering it, for at most {@code timeout} (a lease listener may hold that
   * thread up; after the wait the caller goes on and says so). Never waits for itself: a lease
   * listener that calls the store from within this report's delivery has it already.
   */
  void settle(Duration timeout) {
    deliver();
    if (state.get() == DONE || deliverer == Thread.currentThread()) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean interrupted = false;
    synchronized (this) {
      long left;
      while (state.get() != DONE && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          interrupted = true; // The caller's work is done: finish the wait, keep the interrupt.
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (state.get() != DONE) {
      log.warn(
          "A lock loss report was still being delivered after {} ms (a lease listener is slow);"
              + " going on without it",
          timeout.toMillis());
    }
  }
}
