package dev.locksmith.spi;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one lock as the store sees it, for {@code isLocked()} and for monitoring.
 *
 * <p>For a {@code READ} or a {@code WRITE} key it describes the whole read-write lock of the name:
 * {@code (true, writer, holds, remaining)} while a writer holds, {@code (true, null, readers,
 * null)} while readers hold, {@link #FREE} otherwise.
 *
 * @param locked whether anyone holds it
 * @param owner the holder, for exclusive and write holds; null when free or held by readers
 * @param holds the holder's nested hold count, or the number of readers for a read hold
 * @param remaining the store's view of the time left on the lease; null if unknown or session bound
 */
public record LockState(
    boolean locked, @Nullable String owner, int holds, @Nullable Duration remaining) {

  /** The state of a lock nobody holds. */
  public static final LockState FREE = new LockState(false, null, 0, null);
}
