package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: an owner-checked lock with no expiry at all: {@code SETNX owner}, release only
 * if the value is still the owner's.
 *
 * <p>Everything is owner-checked, but a holder that dies (or just forgets) holds the lock for ever.
 * The kit must fail it on every rule that waits for a lease to run out in the store: a crashed or
 * expired holder freeing the lock (3.1, 3.3, 3.7, 3.8), takeovers (2.1, 2.2, 12.4) and the SPI's
 * expiry rules (12.3, 12.5, 12.6).
 */
public final class NoExpiryLockStore extends KeyValueLockStore {

  /** A connection to {@code space}. */
  public NoExpiryLockStore(KeyValueSpace space) {
    super(space, "broken/no-expiry");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    return space.setIfAbsent(keyOf(key), owner, null)
        ? Acquisition.acquired(0, 1)
        : Acquisition.busy();
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    return owner.equals(space.get(keyOf(key)));
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    String k = keyOf(key);
    return owner.equals(space.get(k)) && space.delete(k)
        ? ReleaseOutcome.RELEASED
        : ReleaseOutcome.NOT_HELD;
  }
}
