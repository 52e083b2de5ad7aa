package dev.locksmith.tck.broken;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.broken.LockTable.ReaderRow;
import java.time.Duration;
import java.util.Map;

/**
 * BROKEN ON PURPOSE: a reader's extend renews every reader of the lock, so a reader that died stays
 * a reader for as long as any other reader keeps renewing.
 *
 * <p>It mirrors read-write locks that keep all readers in one hash with one TTL ({@code if
 * redis.call('hexists', KEYS[1], owner) == 1 then redis.call('pexpire', KEYS[1], ttl)}), the naive
 * design Redisson replaced with per-reader timeout keys, and {@code UPDATE lock_readers SET
 * expires_at = ? WHERE name = ?} with {@code AND owner = ?} forgotten after an owner-checked {@code
 * SELECT}. A crashed reader then keeps writers out not for one lease but until the reads stop,
 * which on a busy lock is never.
 *
 * <p>Caught by 12.13: of two readers, one stops extending while the other keeps extending past the
 * first one's lease; the first one's extend must then be refused, and once the second releases a
 * writer gets in.
 */
public final class SharedReaderExpiryLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public SharedReaderExpiryLockStore(LockTable table) {
    super(table, "broken/shared-reader-expiry");
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    if (key.mode() != LockMode.READ) {
      return super.extend(key, owner, leaseTime);
    }
    checkOpen();
    long lease = leaseTime.toNanos();
    return table.transaction(
        () -> {
          long now = table.now();
          Map<String, ReaderRow> readers = liveReaders(key.name(), now);
          if (!readers.containsKey(owner)) {
            return false;
          }
          // The bug: the owner was checked, then every reader's expiry is set.
          readers.values().forEach(r -> r.expiresAt = now + lease);
          return true;
        });
  }
}
