package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a failed acquire is answered as "busy": {@code catch (Exception e) { return
 * Acquisition.busy(); }}.
 *
 * <p>It mirrors the catch-all that makes "could not get the lock" the safe-looking default. Callers
 * then wait out their timeout on a dead store and report a contended lock; an acquire whose reply
 * was lost after the store took the lock is never undone, since the engine only undoes failures.
 *
 * <p>The kit must fail it on every rule that expects {@code LockStoreException} from an acquire on
 * a paused or killed store (11.1, 11.2, 11.4) and on the SPI's outage rule (12.8).
 */
public final class OutageAsBusyLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public OutageAsBusyLockStore(MemLockSpace space) {
    super(space, "broken/outage-as-busy");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    try {
      return delegate.tryAcquire(key, owner, leaseTime);
    } catch (RuntimeException e) {
      return Acquisition.busy(); // The bug: "unreachable" becomes "taken".
    }
  }
}
