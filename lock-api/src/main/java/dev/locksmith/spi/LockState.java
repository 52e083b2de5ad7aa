package dev.locksmith.spi;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one lock as the store sees it, for {@code isLocked()} and for monitoring.
 *
 * <p>Stores build it with {@link #heldBy} for an exclusive or a write hold, {@link #heldByReaders}
 * for read holds and {@link #FREE}. For a {@code READ} or a {@code WRITE} key it describes the
 * whole read-write lock of the name: the writer while a writer holds, else the readers, else free.
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

  /**
   * A lock held by {@code owner}, exclusively or as the writer of a read-write lock.
   *
   * @param holds the owner's nested hold count, at least 1
   * @param remaining the store's view of the time left on the lease; null if unknown
   * @throws NullPointerException if {@code owner} is null
   * @throws IllegalArgumentException if {@code holds} is below 1
   */
  public static LockState heldBy(String owner, int holds, @Nullable Duration remaining) {
    Objects.requireNonNull(owner, "owner must not be null");
    if (holds < 1) {
      throw new IllegalArgumentException("holds must be at least 1, was " + holds);
    }
    return new LockState(true, owner, holds, remaining);
  }

  /**
   * A read-write lock held by {@code readers} readers and no writer.
   *
   * @throws IllegalArgumentException if {@code readers} is below 1 (a lock without holders is
   *     {@link #FREE})
   */
  public static LockState heldByReaders(int readers) {
    if (readers < 1) {
      throw new IllegalArgumentException(
          "readers must be at least 1, was " + readers + "; a lock nobody holds is FREE");
    }
    return new LockState(true, null, readers, null);
  }
}
