package dev.locksmith.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The pauses of a polling waiter: doubling from a minimum to a cap, each pause drawn at random from
 * its upper half ("equal jitter") so that waiters released together do not poll together.
 */
final class Backoff {

  private final long minNanos;
  private final long maxNanos;
  private long ceiling;

  Backoff(Duration min, Duration max) {
    this.minNanos = min.toNanos();
    this.maxNanos = max.toNanos();
    this.ceiling = minNanos;
  }

  /**
   * The next pause in nanoseconds, no longer than {@code storeHint} (the holder's remaining lease,
   * after which the lock is free for sure) when the store gave one.
   */
  long nextNanos(@Nullable Duration storeHint) {
    long c = ceiling;
    ceiling = Math.min(maxNanos, c * 2);
    long pause = c / 2 + ThreadLocalRandom.current().nextLong(c / 2 + 1);
    if (storeHint != null) {
      long remaining = Math.max(0, InputRules.saturatedNanos(storeHint));
      long hint = remaining > Long.MAX_VALUE - 1_000_000 ? Long.MAX_VALUE : remaining + 1_000_000;
      pause = Math.min(pause, hint);
    }
    return Math.max(pause, Math.min(minNanos, 1_000_000));
  }
}
