package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * BROKEN ON PURPOSE: nested holds are counted in the connection ("I already hold it") without
 * asking the store, so a nested acquire neither renews the lease nor notices that the hold expired.
 *
 * <p>It mirrors Curator's {@code InterProcessMutex}, which counts re-entries in a local map and
 * never touches ZooKeeper for them, ported to a store with leases; and client-side "near caches" of
 * held locks. On a session store the local count is right; with leases the store's hold can run out
 * under it, and a re-entry after that is answered "held" from the cache while a rival holds the
 * lock.
 *
 * <p>The kit must fail it on "an owner that acquires again after its own hold expired gets a fresh
 * hold" (12.5) and "a nested acquire renews the lease" (12.10).
 */
public final class LocalReentrancyLockStore extends ForwardingLockStore {

  /** A hold this connection took, and how many times it re-entered it. */
  private static final class LocalHold {
    final long token;
    int count;

    LocalHold(long token, int count) {
      this.token = token;
      this.count = count;
    }
  }

  private final Map<String, LocalHold> held = new HashMap<>();

  /** A connection to {@code space}. */
  public LocalReentrancyLockStore(MemLockSpace space) {
    super(space, "broken/local-reentrancy");
  }

  @Override
  public synchronized Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime)
      throws Exception {
    LocalHold mine = held.get(key + "|" + owner);
    if (mine != null) {
      // The bug: answered from the connection; the store's lease is neither checked nor renewed.
      mine.count++;
      return Acquisition.acquired(mine.token, mine.count);
    }
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    if (a.isAcquired()) {
      held.put(key + "|" + owner, new LocalHold(a.token(), 1));
    }
    return a;
  }

  @Override
  public synchronized ReleaseOutcome release(LockKey key, String owner) throws Exception {
    LocalHold mine = held.get(key + "|" + owner);
    if (mine != null && mine.count > 1) {
      mine.count--;
      return ReleaseOutcome.HOLD_DECREMENTED;
    }
    held.remove(key + "|" + owner);
    return delegate.release(key, owner);
  }
}
