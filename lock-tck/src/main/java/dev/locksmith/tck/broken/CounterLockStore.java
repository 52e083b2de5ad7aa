package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: the {@code INCR} lock: whoever's {@code INCR} returns 1 holds the lock, a
 * loser takes its increment back with {@code DECR}, and release is {@code DEL}. No owner, no
 * expiry.
 *
 * <p>A holder that dies keeps the lock for ever, and anyone can release anyone's lock. The kit must
 * fail it on every rule that waits for a lease to run out (2.1, 2.2, 3.1, 3.3, 3.7, 3.8, 12.3 to
 * 12.6) and on the SPI's owner checks (12.1, 12.2).
 */
public final class CounterLockStore extends KeyValueLockStore {

  /** A connection to {@code space}. */
  public CounterLockStore(KeyValueSpace space) {
    super(space, "broken/incr-counter");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    if (space.incr(k) == 1) {
      return Acquisition.acquired(0, 1);
    }
    space.decr(k);
    return Acquisition.busy();
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    // Nothing expires, so there is nothing to extend: "held" if anyone holds it.
    return space.get(keyOf(key)) != null;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    return space.delete(keyOf(key)) ? ReleaseOutcome.RELEASED : ReleaseOutcome.NOT_HELD;
  }
}
