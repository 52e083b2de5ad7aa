package dev.locksmith.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One hold to extend in a {@linkplain LockStore#extendAll batch}: what {@link LockStore#extend}
 * takes as arguments, as one value.
 *
 * @param key the lock whose hold to extend
 * @param owner the owner whose hold it must be
 * @param leaseTime the new lease, from when the store applies it (already rounded to the store's
 *     granularity)
 */
public record LeaseExtension(LockKey key, String owner, Duration leaseTime) {

  /** Creates an extension; every part is required. */
  public LeaseExtension {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseTime, "leaseTime");
  }
}
