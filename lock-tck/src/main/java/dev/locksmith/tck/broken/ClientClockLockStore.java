package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * BROKEN ON PURPOSE: the classic {@code GETSET} timestamp lock, with expiry judged on each client's
 * clock and release by plain {@code DEL}.
 *
 * <p>The value is the holder's expiry time on its own clock. A client that sees a timestamp in the
 * past (on its clock) {@code GETSET}s its own and wins if the old one was past too. A client whose
 * clock runs ahead takes a lock that is still held; there is no owner, so extend and release touch
 * whoever holds the lock. With every second client's clock 5 minutes ahead, the kit must fail it
 * wherever such a client meets a holder: mutual exclusion (1.1; 1.3 and 9.1 when the contending
 * threads happen to meet), ownership (2.1, 2.2), expiry and renewal (3.x, 4.1), waiting (7.x, 14.3)
 * and the SPI's owner checks (12.x).
 */
public final class ClientClockLockStore extends KeyValueLockStore {

  private final Clock clock;

  /** A connection to {@code space} whose client judges expiry on {@code clock}. */
  public ClientClockLockStore(KeyValueSpace space, Clock clock) {
    super(space, "broken/getset-client-clock");
    this.clock = Objects.requireNonNull(clock, "clock must not be null");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    long now = clock.millis();
    String mine = Long.toString(now + leaseTime.toMillis());
    if (space.setIfAbsent(k, mine, null)) {
      return Acquisition.acquired(0, 1);
    }
    String current = space.get(k);
    if (current == null || Long.parseLong(current) < now) {
      String old = space.getSet(k, mine);
      if (old == null || Long.parseLong(old) < now) {
        return Acquisition.acquired(0, 1);
      }
    }
    return Acquisition.busy();
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    if (space.get(k) == null) {
      return false;
    }
    space.set(k, Long.toString(clock.millis() + leaseTime.toMillis()));
    return true;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    return space.delete(keyOf(key)) ? ReleaseOutcome.RELEASED : ReleaseOutcome.NOT_HELD;
  }

  @Override
  public LockState read(LockKey key) {
    @Nullable String ts = space.get(keyOf(key));
    return ts != null && Long.parseLong(ts) >= clock.millis()
        ? new LockState(true, null, 1, null)
        : LockState.FREE;
  }
}
