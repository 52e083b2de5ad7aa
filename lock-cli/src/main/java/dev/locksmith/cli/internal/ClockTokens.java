package dev.locksmith.cli.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Fencing tokens as the report shows them. Some stores draw tokens above a clock reading rather
 * than from 1 (Redis: microseconds, memcached: nanoseconds since 1970), so that a counter lost to
 * eviction, a flush or a restart starts again above every earlier token; their 16- and 19-digit
 * tokens are explained where they appear.
 */
final class ClockTokens {

  /** Tokens this far behind the clock still read as drawn from it (a counter started then). */
  private static final Duration LOOK_BACK = Duration.ofDays(3650);

  private ClockTokens() {}

  /** {@code "before → after"}, with what the tokens are when they are clock readings. */
  static String pair(long before, long after) {
    String pair = before + " → " + after;
    String unit = clockUnit(after);
    return unit == null ? pair : pair + ": clock-based tokens, " + unit + " since 1970";
  }

  /**
   * The unit ({@code "ns"}, {@code "µs"}, {@code "ms"}) in which {@code token} is a reading of the
   * clock between ten years ago and a day ahead; null when it is none (a plain counter).
   */
  static @Nullable String clockUnit(long token) {
    return clockUnit(token, System.currentTimeMillis());
  }

  static @Nullable String clockUnit(long token, long nowMillis) {
    long earliest = nowMillis - LOOK_BACK.toMillis();
    long latest = nowMillis + Duration.ofDays(1).toMillis();
    String[] units = {"ns", "µs", "ms"};
    long[] perMilli = {1_000_000L, 1_000L, 1L};
    for (int i = 0; i < units.length; i++) {
      long millis = token / perMilli[i];
      if (millis >= earliest && millis <= latest) {
        return units[i];
      }
    }
    return null;
  }
}
