package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * BROKEN ON PURPOSE: {@code SETNX} then {@code EXPIRE} as two commands, so a client that dies
 * between them leaves a lock that never expires.
 *
 * <p>The second command goes out {@link #EXPIRE_DELAY} after the first succeeded (as a client that
 * sends it after the reply, from a pipeline or a callback, does); closing the connection, which is
 * what a crash does, drops it. The kit must fail it on "a crashed holder frees the lock" (3.1), and
 * on the extend rules (3.6, 12.6): the late EXPIRE overwrites an extend made within 200 ms of the
 * acquire. Release and extend are owner-checked, so that this is the only defect.
 */
public final class SetThenExpireLockStore extends KeyValueLockStore {

  /** How long after the SETNX the EXPIRE is sent. */
  public static final Duration EXPIRE_DELAY = Duration.ofMillis(200);

  private final ScheduledExecutorService outbox =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "broken-setnx-expire");
            t.setDaemon(true);
            return t;
          });

  /** A connection to {@code space}. */
  public SetThenExpireLockStore(KeyValueSpace space) {
    super(space, "broken/setnx-then-expire");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    if (!space.setIfAbsent(k, owner, null)) {
      return Acquisition.busy(space.ttl(k).orElse(null));
    }
    // The bug: the expiry is a second step that a crash can prevent.
    outbox.schedule(
        () -> {
          if (owner.equals(space.get(k))) {
            space.expire(k, leaseTime);
          }
        },
        EXPIRE_DELAY.toMillis(),
        TimeUnit.MILLISECONDS);
    return Acquisition.acquired(0, 1);
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    String k = keyOf(key);
    return owner.equals(space.get(k)) && space.expire(k, leaseTime);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    String k = keyOf(key);
    return owner.equals(space.get(k)) && space.delete(k)
        ? ReleaseOutcome.RELEASED
        : ReleaseOutcome.NOT_HELD;
  }

  @Override
  public void close() {
    super.close();
    outbox.shutdownNow();
  }
}
