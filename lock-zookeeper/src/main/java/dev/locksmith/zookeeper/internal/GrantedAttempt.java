package dev.locksmith.zookeeper.internal;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.QueuedAttempt;

/**
 * A queue attempt that holds the lock from the start: its node's turn had come when it joined the
 * queue, or it nested on a hold its owner had already. Polling it answers the acquisition; it has
 * no place to leave.
 */
public final class GrantedAttempt implements QueuedAttempt {

  private final Acquisition acquisition;

  /** An attempt that acquired with {@code acquisition}. */
  public GrantedAttempt(Acquisition acquisition) {
    this.acquisition = acquisition;
  }

  @Override
  public Acquisition poll() {
    return acquisition;
  }

  @Override
  public void awaitChange(Runnable signal) {
    signal.run();
  }

  @Override
  public void close() {}
}
