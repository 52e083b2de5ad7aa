package dev.locksmith.tck.broken;

import dev.locksmith.spi.LockMode;

/**
 * BROKEN ON PURPOSE: the exclusive lock and the write side of the read-write lock of one name share
 * one row, so {@code lock("orders")} and {@code readWriteLock("orders")} exclude each other.
 *
 * <p>It mirrors a {@code locks} table keyed by {@code name} alone (the {@code kind} column left out
 * of the primary key), and Redis stores that key both as {@code lock:{name}}. Two subsystems that
 * picked the same name for unrelated locks block each other, and a release on one side can free the
 * other.
 *
 * <p>The kit must fail it on "lock(name) and readWriteLock(name) are independent namespaces" (1.5).
 */
public final class SharedWriteRowLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public SharedWriteRowLockStore(LockTable table) {
    super(table, "broken/shared-write-row");
  }

  @Override
  String kindOf(LockMode mode) {
    return "lock"; // The bug: one row per name, whatever the kind of lock.
  }
}
