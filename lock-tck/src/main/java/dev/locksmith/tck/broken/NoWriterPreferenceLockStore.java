package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a read-write lock without writer preference: a writer that finds readers
 * leaves no mark, so new readers keep coming in ahead of it.
 *
 * <p>It mirrors the naive read-write lock of a reader count and a writer flag ({@code INCR readers}
 * unless {@code writer} is set; {@code SET writer NX} when {@code readers} is 0), as most first
 * versions are written. Under a steady stream of overlapping readers a writer never gets in.
 *
 * <p>Caught by 12.12: a new reader is refused after the writer found readers and before it
 * withdraws. "A writer waiting behind a stream of readers gets the lock within a bound" (8.3) sees
 * it only while the readers' holds stay overlapped (timing luck).
 */
public final class NoWriterPreferenceLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public NoWriterPreferenceLockStore(MemLockSpace space) {
    super(space, "broken/no-writer-preference");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    if (!a.isAcquired() && key.mode() == LockMode.WRITE) {
      // The bug: nothing records that a writer waits.
      delegate.readWrite().orElseThrow().withdraw(key, owner);
    }
    return a;
  }
}
