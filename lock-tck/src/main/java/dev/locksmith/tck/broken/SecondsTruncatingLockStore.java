package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a whole-second store that rounds leases <em>down</em> to its unit: a 2.5 s
 * lease is held for 2 s.
 *
 * <p>It mirrors memcached and {@code EXPIRE} code that turns a lease into an expiry with {@code
 * (int) lease.getSeconds()} or {@code TimeUnit.MILLISECONDS.toSeconds(ms)}: truncation, where the
 * unit demands rounding up. It declares its timing honestly (1 s minimum, 1 s granularity), so the
 * kit's timing lease is half a unit off a whole second.
 *
 * <p>The kit must fail it on "held at least 90% of the lease" for a fresh hold (3.7) and for a
 * renewed one (3.8); every other rule uses whole-second leases, which truncation leaves intact.
 */
public final class SecondsTruncatingLockStore extends ForwardingLockStore {

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** A connection to {@code space}. */
  public SecondsTruncatingLockStore(MemLockSpace space) {
    super(space, "broken/seconds-truncating");
  }

  @Override
  public StoreTiming timing() {
    return new StoreTiming(SECOND, SECOND);
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.tryAcquire(key, owner, wholeSeconds(leaseTime));
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.extend(key, owner, wholeSeconds(leaseTime));
  }

  // The bug: getSeconds() drops the fraction; the store's unit needs it rounded up.
  private static Duration wholeSeconds(Duration leaseTime) {
    return Duration.ofSeconds(leaseTime.getSeconds());
  }
}
