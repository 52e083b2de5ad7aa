package dev.locksmith.tck.broken;

import dev.locksmith.Capability;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.Set;

/**
 * What the fenced key-value stores share: a correct owner-checked lease lock ({@code SET NX PX},
 * compare-and-delete release, compare-and-expire extend, as Redis scripts do) with a fencing token
 * from {@link #drawToken}, which each subclass gets wrong in its own way.
 */
public abstract class FencedKeyValueLockStore extends KeyValueLockStore {

  /** A connection to {@code space}, described as {@code description} in messages. */
  protected FencedKeyValueLockStore(KeyValueSpace space, String description) {
    super(space, description);
  }

  @Override
  public Set<Capability> promises() {
    return Set.of(Capability.FENCING);
  }

  /** The token of a new hold on the lock called {@code name}. */
  protected abstract long drawToken(String name);

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    if (!space.setIfAbsent(k, owner, leaseTime)) {
      return Acquisition.busy(space.ttl(k).orElse(null));
    }
    return Acquisition.acquired(drawToken(key.name()), 1);
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    return space.expireIfValue(keyOf(key), owner, leaseTime);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    return space.deleteIfValue(keyOf(key), owner)
        ? ReleaseOutcome.RELEASED
        : ReleaseOutcome.NOT_HELD;
  }
}
