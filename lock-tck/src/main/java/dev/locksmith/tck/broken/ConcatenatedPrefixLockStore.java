package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;

/**
 * BROKEN ON PURPOSE: the store puts its key prefix before a lock name by plain concatenation, so
 * prefix "a" with name "bc" and prefix "ab" with name "c" are one lock, and so are the prefix
 * "app:" with the name "x" and no prefix with the name "app:x".
 *
 * <p>It mirrors every store whose key is {@code prefix + name} or {@code prefix + "lock/" + name}
 * (Locksmith's JDBC, ZooKeeper, etcd and memcached stores before issue 38): key prefixes are meant
 * to keep applications and tenants apart, and a name one of them chooses can land on another's
 * lock.
 *
 * <p>The kit must fail it on "clients whose key prefix and name differ never share a lock" (1.8).
 */
public final class ConcatenatedPrefixLockStore extends ForwardingLockStore {

  private final String prefix;

  /** A connection to {@code space} with {@code keyPrefix}. */
  public ConcatenatedPrefixLockStore(MemLockSpace space, String keyPrefix) {
    super(space, "broken/concatenated-prefix");
    this.prefix = keyPrefix;
  }

  @Override
  public String keyPrefix() {
    return prefix;
  }

  @Override
  protected LockKey storedKey(LockKey key) {
    return new LockKey(prefix + key.name(), key.mode()); // The bug: no separator, no escaping.
  }
}
