package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * BROKEN ON PURPOSE: extend ignores its lease argument and renews with the lease the hold was
 * acquired with.
 *
 * <p>It mirrors Redisson's {@code renewExpiration()}, which renews with the lock's {@code
 * internalLockLeaseTime} field, and stores that remember "the lease" per lock when it was taken:
 * code written for a watchdog that only ever renews with the same lease, broken by {@code
 * Lease.extend(longer)} or {@code extend(shorter)}.
 *
 * <p>The kit must fail it on "extend() keeps the lock past its first expiry" (3.6: the longer lease
 * is dropped) and on "extend sets the lease" (12.6: the shorter one is).
 */
public final class ExtendKeepsAcquireLeaseLockStore extends ForwardingLockStore {

  private final Map<String, Duration> acquiredWith = new ConcurrentHashMap<>();

  /** A connection to {@code space}. */
  public ExtendKeepsAcquireLeaseLockStore(MemLockSpace space) {
    super(space, "broken/extend-keeps-acquire-lease");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    if (a.isAcquired()) {
      acquiredWith.put(key + "|" + owner, leaseTime);
    }
    return a;
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    // The bug: the argument is only a fallback for holds this connection did not take.
    return delegate.extend(key, owner, acquiredWith.getOrDefault(key + "|" + owner, leaseTime));
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    ReleaseOutcome outcome = delegate.release(key, owner);
    if (outcome == ReleaseOutcome.RELEASED) {
      acquiredWith.remove(key + "|" + owner);
    }
    return outcome;
  }
}
