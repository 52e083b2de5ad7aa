package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: the retry hint of a busy answer is the holder's remaining time in seconds read
 * as milliseconds: a lock held for another 30 s hints "retry in 30 ms", one with less than a second
 * left hints "retry now".
 *
 * <p>It mirrors {@code Duration.ofMillis(ttl)} where Redis {@code TTL} (not {@code PTTL}) answers
 * whole seconds. The engine caps its backoff by the hint, so every waiter polls the store about
 * once a millisecond for as long as it waits: a hundred waiters are a hundred thousand requests a
 * second against the store, which is the outage the backoff exists to prevent.
 *
 * <p>Caught by 12.11's lower bound: a busy answer's retry hint is at least the holder's remaining
 * lease less the store's granularity and the slack.
 */
public final class TinyRetryHintLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public TinyRetryHintLockStore(MemLockSpace space) {
    super(space, "broken/tiny-retry-hint");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    if (a.isAcquired() || a.retryAfter() == null) {
      return a;
    }
    return Acquisition.busy(Duration.ofMillis(a.retryAfter().getSeconds())); // The bug.
  }
}
