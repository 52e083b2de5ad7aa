package dev.locksmith.tck;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.LockClient;
import dev.locksmith.spi.LockMode;
import java.util.EnumSet;
import java.util.Set;

/**
 * The three kinds of hold the kit checks the same way: an exclusive lock, and the read and write
 * sides of a read-write lock. Rules marked {@code [kind]} run for every kind the store offers.
 */
public enum HoldKind {
  /** {@code client.lock(name)}. */
  EXCLUSIVE(LockMode.EXCLUSIVE),
  /** {@code client.readWriteLock(name).readLock()}. */
  READ(LockMode.READ),
  /** {@code client.readWriteLock(name).writeLock()}. */
  WRITE(LockMode.WRITE);

  private final LockMode mode;

  HoldKind(LockMode mode) {
    this.mode = mode;
  }

  /** The store's mode for this kind. */
  public LockMode mode() {
    return mode;
  }

  /** The lock of this kind called {@code name} on {@code client}. */
  public DistributedLock of(LockClient client, String name) {
    switch (this) {
      case EXCLUSIVE:
        return client.lock(name);
      case READ:
        return client.readWriteLock(name).readLock();
      default:
        return client.readWriteLock(name).writeLock();
    }
  }

  /**
   * The kind of hold that this kind's hold keeps out: another exclusive hold, a writer for a
   * reader, a reader for a writer (a writer that is never freed would keep readers out forever).
   */
  public HoldKind rival() {
    switch (this) {
      case READ:
        return WRITE;
      case WRITE:
        return READ;
      default:
        return EXCLUSIVE;
    }
  }

  /** The kinds a store with {@code capabilities} offers. */
  public static Set<HoldKind> offeredBy(Set<Capability> capabilities) {
    return capabilities.contains(Capability.READ_WRITE)
        ? EnumSet.allOf(HoldKind.class)
        : EnumSet.of(EXCLUSIVE);
  }
}
