package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: the retry hint of a busy answer is the holder's remaining time in milliseconds
 * read as seconds: a lock free in 1.8 s hints "retry in 30 minutes".
 *
 * <p>It mirrors {@code Duration.ofSeconds(pttl)} where {@code PTTL} answers milliseconds (or {@code
 * TimeUnit.SECONDS} on a millisecond value). This engine only ever shortens its backoff by a hint,
 * so it waits no longer; an engine that trusts hints, or a caller that shows "free in …", is misled
 * a thousandfold.
 *
 * <p>The kit must fail it on "a busy answer's retry hint is no longer than the holder's lease"
 * (12.11).
 */
public final class HintInSecondsLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public HintInSecondsLockStore(MemLockSpace space) {
    super(space, "broken/hint-in-seconds");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    if (a.isAcquired() || a.retryAfter() == null) {
      return a;
    }
    return Acquisition.busy(Duration.ofSeconds(a.retryAfter().toMillis())); // The bug.
  }
}
