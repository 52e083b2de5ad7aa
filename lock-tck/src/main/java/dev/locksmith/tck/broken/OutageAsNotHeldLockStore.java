package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a failed extend, release or read is answered as "not held": {@code false},
 * {@code NOT_HELD}, {@code FREE}.
 *
 * <p>It mirrors catch-alls around the owner-checked scripts ({@code catch (Exception e) { return
 * false; }}), written so that "anything wrong" means "we do not hold it". A holder then loses its
 * lease at the first network blip though the store still holds it for it (and frees it only at
 * expiry), a release that never reached the store is reported as "lost before release", and
 * monitoring shows a lock free while the store cannot be asked.
 *
 * <p>The kit must fail it on the SPI's outage rule (12.8). (The engine-level fault rules pass: the
 * early "lost" they see is what an outage longer than the lease must produce anyway.)
 */
public final class OutageAsNotHeldLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public OutageAsNotHeldLockStore(MemLockSpace space) {
    super(space, "broken/outage-as-not-held");
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    try {
      return delegate.extend(key, owner, leaseTime);
    } catch (RuntimeException e) {
      return false; // The bug: "could not ask" becomes "not held".
    }
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    try {
      return delegate.release(key, owner);
    } catch (RuntimeException e) {
      return ReleaseOutcome.NOT_HELD;
    }
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    try {
      return delegate.read(key);
    } catch (RuntimeException e) {
      return LockState.FREE;
    }
  }
}
