package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import java.util.concurrent.locks.Lock;

/** Bounded waiting for targets whose client has no blocking acquire of its own. */
final class Waits {

  private Waits() {}

  /** A single attempt of a try-once target. */
  @FunctionalInterface
  interface Attempt {
    /** The held lock, or null if it was busy. */
    LockTarget.Held tryOnce() throws Exception;
  }

  /**
   * Retries {@code attempt} every millisecond until it succeeds or {@link
   * LockTarget#MAX_WAIT_MILLIS} passes. The raw bounds and ShedLock meet a busy lock only when the
   * harness misuses them, so the retry is a guard, not a wait strategy being measured.
   */
  static LockTarget.Held retry(String what, Attempt attempt) throws Exception {
    long deadline = System.nanoTime() + LockTarget.MAX_WAIT_MILLIS * 1_000_000L;
    while (true) {
      LockTarget.Held held = attempt.tryOnce();
      if (held != null) {
        return held;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("could not acquire " + what + " in time");
      }
      Thread.sleep(1);
    }
  }

  /** Locks a {@code java.util.concurrent.locks.Lock} from a peer registry, bounded. */
  static LockTarget.Held lock(String what, Lock lock) throws InterruptedException {
    if (!lock.tryLock(LockTarget.MAX_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("could not acquire " + what + " in time");
    }
    return lock::unlock;
  }
}
