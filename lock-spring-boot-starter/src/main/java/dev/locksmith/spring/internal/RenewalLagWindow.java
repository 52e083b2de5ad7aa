package dev.locksmith.spring.internal;

import dev.locksmith.LockObserver;
import java.time.Duration;
import java.util.Optional;

/**
 * The worst renewal lag of the last window, for the health indicator: how late the watchdog sent a
 * renewal, as a fraction of the lease it renewed (renewals are due at a third of the lease, so 2/3
 * means the lease ran out first).
 *
 * <p>Renewals lag when the client's threads are starved (CPU, GC pauses, a blocked scheduler) or
 * the store answers slowly: locks are then lost silently at the next pause. The window keeps the
 * worst lag seen since it started and starts again once it is older than the window, so a lag is
 * reported for at least one window and at most two.
 */
public final class RenewalLagWindow implements LockObserver {

  /** The worst lag of a window, and the lock it was seen on. */
  public record Worst(double fraction, String lockName) {}

  private final long windowNanos;
  private long windowStart = System.nanoTime();
  private Worst current = new Worst(0, "");
  private Worst previous = new Worst(0, "");

  /**
   * A window of {@code window}.
   *
   * @throws IllegalArgumentException if {@code window} is not positive
   */
  public RenewalLagWindow(Duration window) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("the renewal lag window must be positive, was " + window);
    }
    this.windowNanos = window.toNanos();
  }

  @Override
  public void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {
    double fraction = leaseTime.isZero() ? 0 : (double) late.toNanos() / leaseTime.toNanos();
    synchronized (this) {
      roll();
      if (fraction > current.fraction()) {
        current = new Worst(fraction, lockName);
      }
    }
  }

  /** The worst lag of this window and the one before; empty if no renewal lagged at all. */
  public synchronized Optional<Worst> worst() {
    roll();
    Worst w = current.fraction() >= previous.fraction() ? current : previous;
    return w.fraction() > 0 ? Optional.of(w) : Optional.empty();
  }

  private void roll() {
    long now = System.nanoTime();
    if (now - windowStart >= windowNanos) {
      // Two windows on: nothing of the old ones is recent any more.
      previous = now - windowStart >= 2 * windowNanos ? new Worst(0, "") : current;
      current = new Worst(0, "");
      windowStart = now;
    }
  }
}
