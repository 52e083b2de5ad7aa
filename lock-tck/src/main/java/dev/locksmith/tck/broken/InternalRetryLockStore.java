package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: {@code tryAcquire} retries a busy answer inside the store, three more times
 * 250 ms apart, so a "non-blocking" attempt on a held lock blocks for 750 ms.
 *
 * <p>It mirrors drivers that "help" by retrying contention internally (a JDBC store retrying an
 * optimistic-lock conflict in a loop, a Redis store waiting a little for a release it expects), and
 * SPI implementations that call a blocking {@code tryLock(wait)} of an underlying library. The
 * engine, which owns waiting, cannot keep {@code tryAcquire()} non-blocking on top of it.
 *
 * <p>The kit must fail it on "tryAcquire() on a held lock never blocks" (7.1), and on the rules
 * whose leases run out while one of its attempts blocks: the 600 ms leases of 3.1 and 3.3, whose
 * "still held right after" check takes 750 ms, and over eight attempts the 6 s lease of 12.2.
 */
public final class InternalRetryLockStore extends ForwardingLockStore {

  private static final int RETRIES = 3;
  private static final long PAUSE_MILLIS = 250;

  /** A connection to {@code space}. */
  public InternalRetryLockStore(MemLockSpace space) {
    super(space, "broken/internal-retry");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
    for (int i = 0; i < RETRIES && !a.isAcquired(); i++) {
      try {
        Thread.sleep(PAUSE_MILLIS); // The bug: waiting is the engine's job, not the store's.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return a;
      }
      a = delegate.tryAcquire(key, owner, leaseTime);
    }
    return a;
  }
}
