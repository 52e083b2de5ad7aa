package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;

/**
 * BROKEN ON PURPOSE: {@code read()} reports a read-write lock held only by readers as free.
 *
 * <p>It mirrors an {@code isLocked()} written as {@code HGET lock owner ~= nil} or {@code SELECT
 * owner FROM locks WHERE name = ?}: it looks for "the holder", and readers are not one. Monitoring
 * and {@code isLocked()} then say a lock is free while readers hold it.
 *
 * <p>The kit must fail it wherever it reads a read hold: the SPI round trip (12.1), readers shown
 * as held (12.7), the read hold after foreign attempts (12.2) and after a nested release (12.10),
 * and the reader that took over from an expired writer (12.4).
 */
public final class ReadersLookFreeLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public ReadersLookFreeLockStore(MemLockSpace space) {
    super(space, "broken/readers-look-free");
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    LockState state = delegate.read(key);
    // The bug: a lock without an owner counts as free, though readers hold it.
    return state.owner() == null ? LockState.FREE : state;
  }
}
