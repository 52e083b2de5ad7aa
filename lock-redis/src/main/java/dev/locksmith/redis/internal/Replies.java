package dev.locksmith.redis.internal;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.List;

/** Turns the strategies' answers into SPI values, one way for both strategies. */
final class Replies {

  private Replies() {}

  static Acquisition acquisition(List<?> reply) {
    if (num(reply.get(0)) == 1) {
      return Acquisition.acquired(num(reply.get(1)), (int) num(reply.get(2)));
    }
    return busy(num(reply.get(1)));
  }

  /** A busy answer from the holder's remaining PTTL (negative: unknown). */
  static Acquisition busy(long pttl) {
    return Acquisition.busy(pttl > 0 ? Duration.ofMillis(pttl) : null);
  }

  static ReleaseOutcome release(long code) {
    if (code == 2) {
      return ReleaseOutcome.RELEASED;
    }
    return code == 1 ? ReleaseOutcome.HOLD_DECREMENTED : ReleaseOutcome.NOT_HELD;
  }

  /** From {@code {owner field or null, holds, pttl, readers}}. */
  static LockState state(List<?> reply) {
    Object ownerField = reply.get(0);
    if (ownerField != null) {
      long pttl = num(reply.get(2));
      return LockState.heldBy(
          ownerField.toString().substring(2),
          (int) num(reply.get(1)),
          pttl >= 0 ? Duration.ofMillis(pttl) : null);
    }
    int readers = (int) num(reply.get(3));
    return readers > 0 ? LockState.heldByReaders(readers) : LockState.FREE;
  }

  static long num(Object o) {
    if (o instanceof Number) {
      return ((Number) o).longValue();
    }
    if (o == null) {
      return 0;
    }
    return Long.parseLong(o.toString());
  }
}
