package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The store side of {@link dev.locksmith.Lease#releaseHeldAtLeast}: a hold whose renewal has
 * stopped is left to expire in the store at a given moment, or, on stores without store-side
 * expiry, released by the client at that moment.
 */
final class HeldAtLeast {

  private HeldAtLeast() {}

  /** Checks a minimum hold: zero or positive, at most {@link LockOptions#MAX_LEASE_TIME}. */
  static Duration check(Duration minimumHold) {
    Objects.requireNonNull(minimumHold, "minimumHold must not be null");
    if (minimumHold.isNegative() || minimumHold.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
      throw new IllegalArgumentException(
          "minimumHold must be between 0 and "
              + InputRules.human(LockOptions.MAX_LEASE_TIME)
              + ", was "
              + InputRules.human(minimumHold));
    }
    return minimumHold;
  }

  /**
   * Keeps {@code owner}'s hold on {@code key} for {@code keepNanos} more, then lets it end.
   *
   * @return false if the store no longer held it for {@code owner}
   * @throws LockStoreException if the store failed
   */
  static boolean keep(EngineClient client, LockKey key, String owner, long keepNanos) {
    if (client.capabilities().contains(Capability.SESSION_BOUND)) {
      // No store-side expiry: the hold stays in this client's session until released then.
      CompletableFuture.delayedExecutor(keepNanos, TimeUnit.NANOSECONDS)
          .execute(() -> client.releaseInBackground(key, owner));
      return true;
    }
    Duration minimum = client.timing().minimumLease();
    Duration keep =
        Duration.ofNanos(keepNanos).compareTo(minimum) < 0 ? minimum : Duration.ofNanos(keepNanos);
    return onRenewalThread(
        client,
        () ->
            client
                .gateway()
                .call(
                    "release",
                    key,
                    () -> client.store().extend(key, owner, client.gateway().rounded(keep))));
  }

  /**
   * Runs {@code call} on the watchdog's renewal thread and waits for it. Renewals run there one at
   * a time, so a renewal that was in flight when the lease stopped renewing ends before {@code
   * call} starts and cannot undo it. Inline if the client is closing. An interrupt does not cut the
   * wait short (the store call is under way); it is kept for the caller.
   */
  private static boolean onRenewalThread(EngineClient client, Callable<Boolean> call) {
    FutureTask<Boolean> task = new FutureTask<>(call);
    try {
      client.watchdog().execute(task);
    } catch (RejectedExecutionException closing) {
      task.run();
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return task.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException
          ? (RuntimeException) cause
          : new LockStoreException("extend failed: " + cause, cause);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
