package dev.locksmith.shedlock.internal;

import dev.locksmith.DistributedLock;
import dev.locksmith.LockClient;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The shortest lease a client's store accepts (memcached: 1 s, etcd: its minimum TTL), learnt once
 * from the engine's own check in {@link DistributedLock#withLeaseTime}, which refuses shorter ones
 * without calling the store.
 *
 * <p>The API does not report the minimum, so it is found on a ladder of durations: the value learnt
 * is the first rung the store accepts, never below the true minimum.
 */
public final class ShortestLease {

  private static final List<Duration> LADDER =
      List.of(
          Duration.ofMillis(1),
          Duration.ofMillis(10),
          Duration.ofMillis(100),
          Duration.ofMillis(500),
          Duration.ofSeconds(1),
          Duration.ofSeconds(2),
          Duration.ofSeconds(3),
          Duration.ofSeconds(4),
          Duration.ofSeconds(5),
          Duration.ofSeconds(10),
          Duration.ofSeconds(30),
          Duration.ofMinutes(1),
          Duration.ofMinutes(5));

  private final LockClient client;
  private volatile @Nullable Duration learnt;

  /** The shortest lease of {@code client}'s store, learnt on first use. */
  public ShortestLease(LockClient client) {
    this.client = client;
  }

  /**
   * The store lease for a ShedLock lock held at most {@code lockAtMostFor}: that, or the store's
   * shortest lease if it is longer (the provider then ends the hold itself at {@code
   * lockAtMostFor}).
   */
  public Duration storeLeaseFor(DistributedLock lock, Duration lockAtMostFor) {
    Duration shortest = of(lock);
    return lockAtMostFor.compareTo(shortest) < 0 ? shortest : lockAtMostFor;
  }

  /** Whether the store could hold a lease of {@code leaseTime} (by the learnt minimum). */
  public boolean accepts(DistributedLock lock, Duration leaseTime) {
    return leaseTime.compareTo(of(lock)) >= 0;
  }

  /** The learnt minimum; {@code lock} is any lock of the client, used only to ask the engine. */
  Duration of(DistributedLock lock) {
    Duration known = learnt;
    if (known != null) {
      return known;
    }
    for (Duration rung : LADDER) {
      try {
        lock.withLeaseTime(rung);
        learnt = rung;
        return rung;
      } catch (IllegalArgumentException belowMinimum) {
        // The next rung, until the store accepts one.
      }
    }
    throw new IllegalStateException(
        "the store of "
            + client
            + " refuses every lease up to "
            + LADDER.get(LADDER.size() - 1)
            + "; ShedLock cannot lock on it");
  }
}
