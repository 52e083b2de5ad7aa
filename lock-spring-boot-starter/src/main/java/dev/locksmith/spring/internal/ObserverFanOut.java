package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import java.time.Duration;
import java.util.List;

/**
 * Passes each event to every {@link LockObserver} bean of the application, in order: the engine
 * takes one observer per client.
 */
public final class ObserverFanOut implements LockObserver {

  private final List<LockObserver> observers;

  private ObserverFanOut(List<LockObserver> observers) {
    this.observers = List.copyOf(observers);
  }

  /** One observer for {@code observers}: {@link LockObserver#NONE} or the only one if it can. */
  public static LockObserver of(List<LockObserver> observers) {
    if (observers.isEmpty()) {
      return LockObserver.NONE;
    }
    return observers.size() == 1 ? observers.get(0) : new ObserverFanOut(observers);
  }

  @Override
  public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
    observers.forEach(o -> o.acquireEnded(store, lockName, outcome, took));
  }

  @Override
  public void renewalEnded(String store, String lockName, RenewalOutcome outcome, Duration took) {
    observers.forEach(o -> o.renewalEnded(store, lockName, outcome, took));
  }

  @Override
  public void leaseLost(String store, Lease lease, LeaseLostException reason) {
    observers.forEach(o -> o.leaseLost(store, lease, reason));
  }

  @Override
  public void leaseEnded(String store, Lease lease) {
    observers.forEach(o -> o.leaseEnded(store, lease));
  }
}
