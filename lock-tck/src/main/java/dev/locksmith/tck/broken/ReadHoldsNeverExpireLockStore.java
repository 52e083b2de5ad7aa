package dev.locksmith.tck.broken;

import dev.locksmith.LockOptions;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: read holds do not expire: exclusive and write holds get their lease, readers
 * are kept (for a week, which is for ever to a lock).
 *
 * <p>It mirrors read-write locks that count readers in a key or a hash field with no expiry ({@code
 * HINCRBY lock readers 1} where only the writer path sets {@code PEXPIRE}), and reader rows without
 * an {@code expires_at}. A reader that dies keeps every writer out until someone deletes the key by
 * hand.
 *
 * <p>The kit must fail it on every rule that waits for a read hold to run out in the store: the
 * owner checks after expiry (2.1, 2.2, 12.3 to 12.5), a crashed or expired reader freeing the lock
 * (3.1, 3.3, 3.7, 3.8) and extend setting the lease (12.6), each for the read kind only.
 */
public final class ReadHoldsNeverExpireLockStore extends ForwardingLockStore {

  private static final Duration FOREVER = LockOptions.MAX_LEASE_TIME;

  /** A connection to {@code space}. */
  public ReadHoldsNeverExpireLockStore(MemLockSpace space) {
    super(space, "broken/read-holds-never-expire");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.tryAcquire(key, owner, key.mode() == LockMode.READ ? FOREVER : leaseTime);
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.extend(key, owner, key.mode() == LockMode.READ ? FOREVER : leaseTime);
  }
}
