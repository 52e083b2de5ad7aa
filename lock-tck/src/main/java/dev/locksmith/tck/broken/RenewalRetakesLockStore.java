package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: an extend that finds the hold gone takes the lock again if it is free, and
 * answers that the hold was extended.
 *
 * <p>It mirrors "self-healing" renewals ({@code SET key owner NX PX} when the {@code PEXPIRE} of a
 * renewal found no key, meant to survive an eviction): a renewal that was on its way when its lease
 * was released takes the lock back for a holder that no longer wants it (redisson#7272: a renewal
 * raced the unlock and kept the lock alive), and a hold deleted by an operator or lost to an
 * eviction is never reported.
 *
 * <p>The kit must fail it on "a renewal that reaches the store after the release does not bring the
 * hold back" (4.6), and where a renewal must find the hold gone: 4.5 (an outside actor deleted it),
 * 12.3 and 12.15 (extend by an owner whose hold expired, or of a free name), 14.8.
 */
public final class RenewalRetakesLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public RenewalRetakesLockStore(MemLockSpace space) {
    super(space, "broken/renewal-retakes");
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return super.extend(key, owner, leaseTime)
        || super.tryAcquire(key, owner, leaseTime).isAcquired(); // The bug.
  }
}
