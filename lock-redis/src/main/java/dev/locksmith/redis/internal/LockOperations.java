package dev.locksmith.redis.internal;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.List;

/**
 * The atomic lock operations of one strategy (Lua scripts, or WATCH/MULTI/EXEC) over the shared
 * {@link KeyLayout}. Implementations let the driver's exceptions through; the store turns them into
 * {@code LockStoreException}s.
 */
public interface LockOperations {

  /** See {@code LockStore.tryAcquire}; {@code leaseMillis} is already rounded up. */
  Acquisition acquire(LockKey key, String owner, long leaseMillis);

  /** See {@code LockStore.extend}. */
  boolean extend(LockKey key, String owner, long leaseMillis);

  /**
   * See {@code LockStore.extendAll}; each extension's lease is already rounded up. The default
   * extends one after another.
   */
  default boolean[] extendAll(List<LeaseExtension> extensions) {
    boolean[] held = new boolean[extensions.size()];
    for (int i = 0; i < held.length; i++) {
      LeaseExtension e = extensions.get(i);
      held[i] = extend(e.key(), e.owner(), millis(e.leaseTime()));
    }
    return held;
  }

  /** See {@code LockStore.release}; a last release publishes on the key's channel. */
  ReleaseOutcome release(LockKey key, String owner);

  /** See {@code LockStore.read}. */
  LockState read(LockKey key);

  /** Removes {@code owner}'s waiting-writer mark, and tells waiting readers. */
  void withdraw(LockKey key, String owner);

  /** {@code lease} in whole milliseconds, rounded up so the server never holds less than asked. */
  static long millis(Duration lease) {
    long ms = lease.toMillis();
    return lease.minusMillis(ms).isZero() ? Math.max(1, ms) : ms + 1;
  }

  /** Closes what the strategy opened itself (pooled connections); the store closes the rest. */
  default void close() {}
}
