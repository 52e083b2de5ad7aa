package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a whole-second store that declares millisecond granularity and rounds leases
 * <em>down</em> to its unit: a 1.5 s lease is held for 1 s.
 *
 * <p>It mirrors memcached and {@code EXPIRE} code that turns a lease into an expiry with {@code
 * (int) lease.getSeconds()} or {@code TimeUnit.MILLISECONDS.toSeconds(ms)}: truncation, where the
 * unit demands rounding up. A store that declares its whole-second granularity is safe from this,
 * since the engine rounds every lease up to the declared unit before calling it; this one leaves
 * the declaration at the default, so leases arrive with fractions.
 *
 * <p>The kit must fail it on "held at least 90% of the lease" for a fresh hold (3.7) and for a
 * renewed one (3.8).
 */
public final class SecondsTruncatingLockStore extends ForwardingLockStore {

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** A connection to {@code space}. */
  public SecondsTruncatingLockStore(MemLockSpace space) {
    super(space, "broken/seconds-truncating");
  }

  @Override
  public StoreTiming timing() {
    // The first half of the bug: the server counts whole seconds, the store declares milliseconds,
    // so the engine sends leases with a fraction of a second.
    return new StoreTiming(SECOND, Duration.ofMillis(1));
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.tryAcquire(key, owner, wholeSeconds(leaseTime));
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.extend(key, owner, wholeSeconds(leaseTime));
  }

  // The second half: getSeconds() drops the fraction.
  private static Duration wholeSeconds(Duration leaseTime) {
    return Duration.ofSeconds(leaseTime.getSeconds());
  }
}
