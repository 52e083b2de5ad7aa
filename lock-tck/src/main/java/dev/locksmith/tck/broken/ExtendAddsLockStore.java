package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: extend adds the lease time to what is left of the lease instead of setting the
 * lease to the lease time from now.
 *
 * <p>It mirrors {@code PEXPIRE key (PTTL key + lease)}, a memcached {@code touch} with the old
 * expiry plus a delta, and SQL {@code SET expires_at = expires_at + ?}: "extend" read as "add
 * time". Each renewal at a third of the lease leaves the hold two thirds of a lease longer, so a
 * holder that dies after renewing for a while keeps the lock for many leases.
 *
 * <p>The kit must fail it on "extend sets the lease" (12.6) and on "a crashed holder loses a
 * renewed lock within the lease plus the slack" (3.8).
 */
public final class ExtendAddsLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public ExtendAddsLockStore(MemLockSpace space) {
    super(space, "broken/extend-adds");
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    LockState state = delegate.read(key);
    // The bug: the remaining time is kept and the new lease added on top of it.
    Duration left = state.remaining() == null ? Duration.ZERO : state.remaining();
    return delegate.extend(key, owner, left.plus(leaseTime));
  }
}
