package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;

/**
 * BROKEN ON PURPOSE: holds nest on acquire, but release ends the owner's hold whatever its count:
 * the first release of a nested hold frees the lock.
 *
 * <p>It mirrors a reentrant hash lock whose unlock script is {@code if hexists(KEYS[1], owner) then
 * del(KEYS[1])} (acquire counts with {@code HINCRBY}, release never looks at the count), and JDBC
 * code with {@code DELETE … WHERE owner = ?} beside an {@code UPDATE … SET holds = holds + 1}. An
 * inner method's unlock frees the lock while the outer method still works under it.
 *
 * <p>The kit must fail it on nested holds freeing only at the last release: through the engine with
 * one client (6.1) and two (6.2), and in the SPI (12.10); and on the nested-token rule (5.3), whose
 * outer lease is found lost when it is released.
 */
public final class ReleaseIgnoresHoldCountLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public ReleaseIgnoresHoldCountLockStore(MemLockSpace space) {
    super(space, "broken/release-ignores-hold-count");
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    ReleaseOutcome outcome = delegate.release(key, owner);
    while (outcome == ReleaseOutcome.HOLD_DECREMENTED) {
      outcome = delegate.release(key, owner); // The bug: every hold goes at once.
    }
    return outcome;
  }
}
