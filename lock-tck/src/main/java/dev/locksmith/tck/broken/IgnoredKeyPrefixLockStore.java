package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import java.util.Objects;

/**
 * BROKEN ON PURPOSE: the store reports the key prefix it was given but never puts it before a lock
 * name, so clients with different prefixes (two applications, two tenants, test and production on
 * one server) share every lock name.
 *
 * <p>It mirrors a provider that copies {@code LockOptions.keyPrefix()} into the store for {@code
 * keyPrefix()} (so the client's check that the prefix applies passes) while the key is built from
 * the bare name: the prefix added in one code path and forgotten in another.
 *
 * <p>Caught by 1.6: two clients with different key prefixes hold the same name at once, and two
 * with the same prefix exclude each other.
 */
public final class IgnoredKeyPrefixLockStore extends ForwardingLockStore {

  private final String keyPrefix;

  /** A connection to {@code space} that claims to use {@code keyPrefix}. */
  public IgnoredKeyPrefixLockStore(MemLockSpace space, String keyPrefix) {
    super(new MemLockStore(space), "broken/ignored-key-prefix");
    this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
  }

  @Override
  public String keyPrefix() {
    return keyPrefix; // The bug: reported, but the wrapped connection was built without it.
  }
}
