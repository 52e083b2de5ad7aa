package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import java.nio.charset.StandardCharsets;

/**
 * BROKEN ON PURPOSE: lock names are cut to 250 UTF-8 bytes to fit the store's key limit, so long
 * names that differ only after byte 250 are one lock.
 *
 * <p>It mirrors memcached code that fits names into the protocol's 250-byte keys with {@code new
 * String(bytes, 0, 250)}, and {@code VARCHAR(250)} columns in a database that truncates silently.
 * The engine allows names of 256 bytes, so two such names exclude each other (and a hold on one can
 * be released through the other).
 *
 * <p>The kit must fail it on "long names that differ only in their last character are independent"
 * (12.9).
 */
public final class TruncatedNameLockStore extends ForwardingLockStore {

  private static final int KEY_LIMIT_BYTES = 250;

  /** A connection to {@code space}. */
  public TruncatedNameLockStore(MemLockSpace space) {
    super(space, "broken/truncated-name");
  }

  @Override
  protected LockKey storedKey(LockKey key) {
    byte[] utf8 = key.name().getBytes(StandardCharsets.UTF_8);
    if (utf8.length <= KEY_LIMIT_BYTES) {
      return key;
    }
    // The bug: whatever does not fit is dropped, instead of hashing the name into the limit.
    return new LockKey(new String(utf8, 0, KEY_LIMIT_BYTES, StandardCharsets.UTF_8), key.mode());
  }
}
