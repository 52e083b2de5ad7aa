package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * BROKEN ON PURPOSE: fencing tokens are numbered by each connection, not by the store: every client
 * counts 1, 2, 3… on its own, while the store declares FENCING (and DURABLE_FENCING).
 *
 * <p>It mirrors lock clients that keep the "fence" in an {@code AtomicLong} of the client object
 * (some Redlock ports number their own acquisitions), and tokens taken from a per-connection
 * sequence. Tokens rise for one client and fall back whenever another client takes over, so a
 * resource guarded by them accepts a stale holder's writes.
 *
 * <p>The kit must fail it wherever holders on different clients follow each other: successive
 * holders (5.1), a takeover (5.2), a restart (5.4), and the history checker's token order under
 * contention (1.3, 8.6, 9.1).
 */
public final class PerConnectionTokenLockStore extends ForwardingLockStore {

  private final AtomicLong fence = new AtomicLong();
  private final Map<String, Long> tokens = new ConcurrentHashMap<>();

  /** A connection to {@code space}. */
  public PerConnectionTokenLockStore(MemLockSpace space) {
    super(space, "broken/per-connection-token");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    if (!a.isAcquired()) {
      return a;
    }
    String hold = key + "|" + owner;
    // The bug: the token comes from this connection's counter; nested holds keep their first one.
    long token =
        a.holds() == 1
            ? tokens.compute(hold, (k, old) -> fence.incrementAndGet())
            : tokens.computeIfAbsent(hold, k -> fence.incrementAndGet());
    return Acquisition.acquired(token, a.holds());
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    ReleaseOutcome outcome = delegate.release(key, owner);
    if (outcome == ReleaseOutcome.RELEASED) {
      tokens.remove(key + "|" + owner);
    }
    return outcome;
  }
}
