package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: extend is owner-checked in the store, but its reply is ignored: the caller is
 * always told the hold was extended.
 *
 * <p>It mirrors renewal code that runs the owner-checked {@code PEXPIRE} script and returns {@code
 * true} after it without looking at the 0/1 reply, and JDBC code that ignores the update count of
 * {@code UPDATE … SET expires_at = ? WHERE owner = ?}. A holder whose hold expired, was taken over
 * or was deleted keeps renewing nothing and believes it holds the lock: no double release, but two
 * workers that both think they own the lock.
 *
 * <p>The kit must fail it on a hold deleted by an outside actor, which its holder is never told of
 * (4.5), and on the SPI's owner checks for every foreign or expired owner (12.2, 12.3, 12.4).
 * Through the engine after a takeover (2.2) it shows only by timing luck: the engine usually learns
 * on its own clock that the lease ran out and throws before it asks the store.
 */
public final class ExtendIgnoresReplyLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public ExtendIgnoresReplyLockStore(MemLockSpace space) {
    super(space, "broken/extend-ignores-reply");
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    delegate.extend(key, owner, leaseTime);
    return true; // The bug: the store's "not held" never reaches the caller.
  }
}
