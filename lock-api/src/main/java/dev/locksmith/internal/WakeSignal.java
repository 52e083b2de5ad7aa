package dev.locksmith.internal;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** A wake-up for one waiter: the store's release notification signals it, the waiter awaits it. */
final class WakeSignal {

  private final Semaphore permits = new Semaphore(0);

  void signal() {
    if (permits.availablePermits() == 0) {
      permits.release();
    }
  }

  /**
   * Waits up to {@code nanos} for a signal; a signal that came while the waiter was busy counts.
   * Either way the waiter asks the store again, so whether a signal came is not returned.
   */
  void await(long nanos) throws InterruptedException {
    permits.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    permits.drainPermits();
  }
}
