package dev.locksmith.internal;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockObserver;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's view of a client's {@link LockObserver}: it passes every call on and logs, never
 * throws, what the observer throws, so that an observer cannot break locking.
 */
final class GuardedObserver implements LockObserver {

  private static final Logger log = LoggerFactory.getLogger(GuardedObserver.class);

  private final LockObserver observer;

  GuardedObserver(LockObserver observer) {
    this.observer = observer;
  }

  @Override
  public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
    guard("acquireEnded", lockName, () -> observer.acquireEnded(store, lockName, outcome, took));
  }

  @Override
  public void renewalEnded(String store, String lockName, RenewalOutcome outcome, Duration took) {
    guard("renewalEnded", lockName, () -> observer.renewalEnded(store, lockName, outcome, took));
  }

  @Override
  public void leaseLost(String store, Lease lease, LeaseLostException reason) {
    guard("leaseLost", lease.name(), () -> observer.leaseLost(store, lease, reason));
  }

  @Override
  public void leaseEnded(String store, Lease lease) {
    guard("leaseEnded", lease.name(), () -> observer.leaseEnded(store, lease));
  }

  @Override
  public Span started(Operation operation, String store, String lockName) {
    if (observer == NONE) {
      return Span.NONE;
    }
    Span span;
    try {
      span = observer.started(operation, store, lockName);
    } catch (RuntimeException e) {
      log.warn(
          "Lock observer {} threw from started({}) for lock '{}'; ignored",
          observer,
          operation,
          lockName,
          e);
      return Span.NONE;
    }
    if (span == null || span == Span.NONE) {
      return Span.NONE;
    }
    return outcome -> guard("Span.ended", lockName, () -> span.ended(outcome));
  }

  @Override
  public void waitStarted(String store, String lockName) {
    guard("waitStarted", lockName, () -> observer.waitStarted(store, lockName));
  }

  @Override
  public void waitEnded(String store, String lockName, AcquireOutcome outcome, Duration waited) {
    guard("waitEnded", lockName, () -> observer.waitEnded(store, lockName, outcome, waited));
  }

  @Override
  public void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {
    guard("renewalDue", lockName, () -> observer.renewalDue(store, lockName, late, leaseTime));
  }

  @Override
  public void releasedWithMargin(
      String store, String lockName, Duration remaining, Duration leaseTime) {
    guard(
        "releasedWithMargin",
        lockName,
        () -> observer.releasedWithMargin(store, lockName, remaining, leaseTime));
  }

  private void guard(String method, String lockName, Runnable call) {
    if (observer == NONE) {
      return;
    }
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn(
          "Lock observer {} threw from {} for lock '{}'; ignored", observer, method, lockName, e);
    }
  }
}
