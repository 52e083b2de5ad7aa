package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;

/**
 * BROKEN ON PURPOSE: release is owner-checked in the store, but the caller is told RELEASED when
 * the store changed nothing because the owner did not hold the lock.
 *
 * <p>It mirrors the owner-checked {@code DEL} script whose reply is mapped with {@code n == 0 ?
 * HOLD_DECREMENTED : RELEASED} (so "not held", {@code nil} or {@code -1}, falls into RELEASED), and
 * JDBC code that ignores the update count of {@code DELETE … WHERE owner = ?}. Nobody's lock is
 * harmed, but a holder whose lease was lost is told it released cleanly, so the work it did after
 * losing the lock goes unnoticed.
 *
 * <p>The kit must fail it on the SPI's owner checks for every foreign or expired owner (12.2, 12.3,
 * 12.4). Through the engine it shows only by timing luck: the engine usually learns on its own
 * clock that the lease ran out and throws before the store's answer matters (2.6 always, 2.1 unless
 * the rival's takeover beats the engine's expiry sweep).
 */
public final class ReleaseIgnoresReplyLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public ReleaseIgnoresReplyLockStore(MemLockSpace space) {
    super(space, "broken/release-ignores-reply");
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    ReleaseOutcome outcome = delegate.release(key, owner);
    // The bug: only "decremented" is told apart; "not held" reads as released.
    return outcome == ReleaseOutcome.HOLD_DECREMENTED
        ? ReleaseOutcome.HOLD_DECREMENTED
        : ReleaseOutcome.RELEASED;
  }
}
