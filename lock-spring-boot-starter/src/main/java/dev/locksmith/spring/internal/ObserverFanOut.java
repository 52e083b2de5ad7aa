package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import java.time.Duration;
import java.util.ArrayList;
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

  @Override
  public Span started(Operation operation, String store, String lockName) {
    List<Span> spans = new ArrayList<>(observers.size());
    for (LockObserver o : observers) {
      Span span = o.started(operation, store, lockName);
      if (span != Span.NONE) {
        spans.add(span);
      }
    }
    if (spans.isEmpty()) {
      return Span.NONE;
    }
    // Ended in reverse, as scopes opened in this order must close.
    return outcome -> {
      for (int i = spans.size() - 1; i >= 0; i--) {
        spans.get(i).ended(outcome);
      }
    };
  }

  @Override
  public void waitStarted(String store, String lockName) {
    observers.forEach(o -> o.waitStarted(store, lockName));
  }

  @Override
  public void waitEnded(String store, String lockName, AcquireOutcome outcome, Duration waited) {
    for (int i = observers.size() - 1; i >= 0; i--) {
      observers.get(i).waitEnded(store, lockName, outcome, waited);
    }
  }

  @Override
  public void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {
    observers.forEach(o -> o.renewalDue(store, lockName, late, leaseTime));
  }

  @Override
  public void releasedWithMargin(
      String store, String lockName, Duration remaining, Duration leaseTime) {
    observers.forEach(o -> o.releasedWithMargin(store, lockName, remaining, leaseTime));
  }
}
