package dev.locksmith.tck.broken;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

/**
 * BROKEN ON PURPOSE: every attempt, the losers' too, draws a token from a shared counter that it
 * creates when missing, at the wall clock in nanoseconds ({@code ADD fence <now>}, then {@code
 * INCR}); when two attempts find it missing at once, one creation answers NOT_STORED, and the store
 * fails that attempt, also the one that just won the lock.
 *
 * <p>It mirrors Locksmith's memcached store before issue 38 ({@code incr … answered ERR_NOT_STORED}
 * failed a winner's acquire under contention): a race in the store's own bookkeeping that it could
 * absorb (the counter exists now: draw again) turned into a failure of a lock it had granted.
 * Tokens stay sound: a lost counter restarts above the ones drawn before.
 *
 * <p>The kit must fail it on "clients racing for fresh names: no attempt fails" (1.9), which races
 * after dropping the store's idle state.
 */
public final class CounterCreateRaceLockStore extends FencedKeyValueLockStore {

  private static final String COUNTER = "fence";
  private final Clock wallClock = Clock.systemUTC();

  /** A connection to {@code space}. */
  public CounterCreateRaceLockStore(KeyValueSpace space) {
    super(space, "broken/counter-create-race");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    boolean won = space.setIfAbsent(k, owner, leaseTime);
    long token = drawToken(key.name()); // Sent behind the add, whoever wins.
    return won ? Acquisition.acquired(token, 1) : Acquisition.busy(space.ttl(k).orElse(null));
  }

  @Override
  protected long drawToken(String name) {
    if (space.get(COUNTER) == null) {
      LockSupport.parkNanos(1_000_000L); // The round trip between the miss and the creation.
      Instant now = wallClock.instant();
      String floor = Long.toString(now.getEpochSecond() * 1_000_000_000L + now.getNano());
      if (!space.setIfAbsent(COUNTER, floor, null)) {
        // The bug: someone else created it meanwhile, which is fine, but the store gives up.
        throw new LockStoreException("incr of " + COUNTER + " answered NOT_STORED");
      }
    }
    return space.incr(COUNTER);
  }
}
