package dev.locksmith.shedlock.internal;

import dev.locksmith.LockClient;
import java.time.Duration;

/**
 * The shortest lease a client's store holds ({@link LockClient#minimumLease()}: memcached 1 s, etcd
 * its minimum TTL), and what it means for a ShedLock hold: a {@code lockAtMostFor} below it is held
 * with the shortest lease and ended by the provider itself.
 */
public final class ShortestLease {

  private final LockClient client;

  /** The shortest lease of {@code client}'s store. */
  public ShortestLease(LockClient client) {
    this.client = client;
  }

  /**
   * The store lease for a ShedLock lock held at most {@code lockAtMostFor}: that, or the store's
   * shortest lease if it is longer (the provider then ends the hold itself at {@code
   * lockAtMostFor}).
   */
  public Duration storeLeaseFor(Duration lockAtMostFor) {
    Duration shortest = client.minimumLease();
    return lockAtMostFor.compareTo(shortest) < 0 ? shortest : lockAtMostFor;
  }

  /** Whether the store can hold a lease of {@code leaseTime}. */
  public boolean accepts(Duration leaseTime) {
    return leaseTime.compareTo(client.minimumLease()) >= 0;
  }
}
