package dev.locksmith.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;

/**
 * The engine's one way into a store: every call the engine makes for a lease, a release or a read
 * goes through here, so failures are reported the same way for every store.
 *
 * <p>A failed call becomes a {@link LockStoreException} that names the operation, the lock and the
 * store, with the driver's exception as cause. Release, extend and read run with the caller's
 * interrupt flag set aside (see {@link Interrupts#deferredDuring}). Acquires are not wrapped here:
 * the engine first decides whether an acquire of unknown outcome must be undone.
 */
final class StoreGateway {

  private final LockStore store;
  private final String storeName;

  StoreGateway(LockStore store) {
    this.store = store;
    this.storeName = store.describe();
  }

  String storeName() {
    return storeName;
  }

  /** The store's tryAcquire as is: its failures propagate unchanged, for the engine to undo. */
  Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    return store.tryAcquire(key, owner, leaseTime);
  }

  /** Extends {@code owner}'s hold; false if it no longer holds {@code key}. */
  boolean extend(LockKey key, String owner, Duration leaseTime) {
    return Interrupts.deferredDuring(
        () -> {
          try {
            return store.extend(key, owner, leaseTime);
          } catch (RuntimeException e) {
            throw failure("extend", key, e);
          }
        });
  }

  /** Releases one hold of {@code owner}. */
  ReleaseOutcome release(LockKey key, String owner) {
    return Interrupts.deferredDuring(
        () -> {
          try {
            return store.release(key, owner);
          } catch (RuntimeException e) {
            throw failure("release", key, e);
          }
        });
  }

  /** Reads the state of {@code key}. */
  LockState read(LockKey key) {
    return Interrupts.deferredDuring(
        () -> {
          try {
            return store.read(key);
          } catch (RuntimeException e) {
            throw failure("read", key, e);
          }
        });
  }

  /** What a failed store call becomes: a {@link LockStoreException} naming what failed where. */
  LockStoreException failure(String operation, LockKey key, RuntimeException e) {
    if (e instanceof LockStoreException) {
      return (LockStoreException) e;
    }
    return new LockStoreException(
        operation + " of lock '" + key.name() + "' failed on " + storeName + ": " + e, e);
  }
}
