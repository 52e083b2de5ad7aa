package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReadWriteHolds;

/**
 * BROKEN ON PURPOSE: a write attempt that finds readers leaves a waiting-writer mark, but {@code
 * withdraw} does nothing, so the mark stays until it expires (a lease later).
 *
 * <p>It mirrors a store that marks waiting writers (for writer preference) and keeps the SPI's
 * default, do-nothing {@code withdraw()}: the one method a store author forgets, because nothing
 * fails until a writer gives up. Each writer that times out then keeps new readers out for a whole
 * lease.
 *
 * <p>The kit must fail it on "a writer that gave up does not keep new readers out" through the
 * engine (8.4, 8.7) and in the SPI (12.12).
 */
public final class NoOpWithdrawLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public NoOpWithdrawLockStore(MemLockSpace space) {
    super(space, "broken/no-op-withdraw");
  }

  @Override
  protected void withdraw(ReadWriteHolds holds, LockKey key, String owner) {
    // The bug: a withdraw written as a placeholder and never filled in.
  }
}
