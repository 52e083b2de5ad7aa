package dev.locksmith.spi;

/**
 * The part of a {@link LockStore} that keeps shared (read) holds beside exclusive ones: a store
 * that provides it declares {@code Capability.READ_WRITE}.
 *
 * <p>With it, {@link LockStore#tryAcquire} also takes keys of mode {@link LockMode#READ} and {@link
 * LockMode#WRITE} of one read-write lock. Many readers or one writer hold it; a reader's token is
 * the lock's current counter (the last writer's), shared by every reader. A write attempt that
 * finds readers records that a writer waits (for its lease time), so that new readers are kept out
 * until it has acquired or withdrawn; a store that keeps a {@link WaitQueue} keeps the waiting
 * writer's place there instead, and its {@link #withdraw} has nothing to do.
 */
@FunctionalInterface
public interface ReadWriteHolds {

  /**
   * Removes the mark of a writer that gave up waiting: called after a write {@code tryAcquire()}
   * that found the lock taken, and after a polling write wait that timed out or was interrupted. A
   * writer that dies never calls it; its mark must then end with its lease.
   */
  void withdraw(LockKey key, String owner) throws Exception;
}
