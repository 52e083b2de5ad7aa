package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: the lease in milliseconds goes where the store expects seconds, so a 600 ms
 * lease is held for 600 s.
 *
 * <p>It mirrors {@code jedis.expire(key, leaseMillis)} (EXPIRE takes seconds) and {@code
 * memcached.add(key, (int) lease.toMillis(), owner)}: the unit of the number is lost between the
 * lock code and the driver call. A lock whose holder dies is stuck a thousand times too long.
 *
 * <p>The kit must fail it on every rule that waits for a lease to run out in the store: the owner
 * checks after expiry (2.1, 2.2, 12.3 to 12.5), a crashed holder freeing the lock (3.1, 3.7, 3.8),
 * a rival taking an expired lock (3.3, 5.2), extend setting the lease (12.6), and the busy answer's
 * retry hint (the holder's remaining time) bounded by the lease (12.11). Rules about the holder's
 * own view (3.2, 3.9) pass: the engine times the lease itself.
 */
public final class MillisAsSecondsLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public MillisAsSecondsLockStore(MemLockSpace space) {
    super(space, "broken/millis-as-seconds");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.tryAcquire(key, owner, Duration.ofSeconds(leaseTime.toMillis()));
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.extend(key, owner, Duration.ofSeconds(leaseTime.toMillis()));
  }
}
