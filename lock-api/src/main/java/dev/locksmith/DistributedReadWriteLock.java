package dev.locksmith;

/**
 * A pair of locks on one name: many readers at a time, or one writer and no reader.
 *
 * <p>A writer that is waiting keeps new readers out, so a stream of readers cannot starve it.
 * Readers and writers are owners like any other (a new owner per acquire unless {@link
 * DistributedLock#withOwner} says otherwise). A read-write lock named {@code n} is independent of
 * the exclusive lock {@link LockClient#lock(String) lock(n)}.
 */
public interface DistributedReadWriteLock {

  /** The name shared by both locks. */
  String name();

  /** The shared lock: held by many readers at once while no writer holds the write lock. */
  DistributedLock readLock();

  /** The exclusive lock: held by one writer while no reader holds the read lock. */
  DistributedLock writeLock();
}
