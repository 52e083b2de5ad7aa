package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: {@code SET NX PX} to acquire, but release is a plain {@code DEL} with no owner
 * check.
 *
 * <p>A holder whose lease expired and whose lock passed to another owner deletes the new owner's
 * lock when it finally releases (even the engine's clean-up of a lease it knows is lost does); the
 * kit must fail it on the late release after a takeover (2.1) and on the SPI's owner checks (12.2,
 * 12.4).
 */
public final class PlainDeleteLockStore extends KeyValueLockStore {

  /** A connection to {@code space}. */
  public PlainDeleteLockStore(KeyValueSpace space) {
    super(space, "broken/plain-delete");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    return space.setIfAbsent(k, owner, leaseTime)
        ? Acquisition.acquired(0, 1)
        : Acquisition.busy(space.ttl(k).orElse(null));
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    return owner.equals(space.get(k)) && space.expire(k, leaseTime);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    // The bug: whoever holds the key now, it goes.
    return space.delete(keyOf(key)) ? ReleaseOutcome.RELEASED : ReleaseOutcome.NOT_HELD;
  }
}
