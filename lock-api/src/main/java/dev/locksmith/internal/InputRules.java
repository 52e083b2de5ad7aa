package dev.locksmith.internal;

import dev.locksmith.LockOptions;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks every public entry point applies to its input, with messages that name the argument
 * and the rule it broke.
 */
public final class InputRules {

  /** The longest lock name, in UTF-8 bytes. */
  public static final int MAX_NAME_BYTES = 256;

  /** The longest owner id, in UTF-8 bytes. */
  public static final int MAX_OWNER_BYTES = 128;

  /** The longest owner prefix or key prefix, in UTF-8 bytes. */
  public static final int MAX_PREFIX_BYTES = 64;

  private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);
  private static final Pattern SIMPLE_DURATION =
      Pattern.compile("(\\d{1,12})\\s*(ns|us|ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

  private InputRules() {}

  /**
   * Checks a lock name: non-null, not blank, at most 256 UTF-8 bytes, no control characters, line
   * separators or bidirectional controls.
   */
  public static String name(String name) {
    return nonBlankText("lock name", name, MAX_NAME_BYTES);
  }

  /** Checks an owner id given by the caller. */
  public static String owner(String owner) {
    return nonBlankText("owner", owner, MAX_OWNER_BYTES);
  }

  /** Checks the client's owner prefix. */
  public static String ownerPrefix(String owner) {
    return nonBlankText("owner", owner, MAX_PREFIX_BYTES);
  }

  /** Checks a key prefix (may be empty, meaning no prefix). */
  public static String keyPrefix(String prefix) {
    return text("keyPrefix", prefix, MAX_PREFIX_BYTES);
  }

  /** {@link #text}, and not empty or only white space. */
  private static String nonBlankText(String what, String value, int maxBytes) {
    Objects.requireNonNull(value, () -> what + " must not be null");
    if (value.isBlank()) {
      throw new IllegalArgumentException(
          what + " must not be " + (value.isEmpty() ? "empty" : "blank (only white space)"));
    }
    return text(what, value, maxBytes);
  }

  /**
   * Checks text that may be empty: non-null, at most {@code maxBytes} UTF-8 bytes, valid Unicode,
   * no control characters, line separators or bidirectional controls.
   */
  private static String text(String what, String value, int maxBytes) {
    Objects.requireNonNull(value, () -> what + " must not be null");
    // The UTF-8 length is counted here rather than encoded: a name is checked on every lock(name),
    // and encoding it showed in the profile of an acquire on a fast store.
    int bytes = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c >= ' ' && c < '\u007F') {
        bytes++;
        continue;
      }
      if (Character.isISOControl(c) || isSeparatorOrBidiControl(c)) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "%s must not contain control characters, line separators or bidirectional"
                    + " controls; found U+%04X at index %d",
                what,
                (int) c,
                i));
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
          bytes += 4;
          continue;
        }
        throw new IllegalArgumentException(
            what + " has an unpaired surrogate at index " + i + "; it is not valid Unicode text");
      }
      if (Character.isLowSurrogate(c)) {
        throw new IllegalArgumentException(
            what + " has an unpaired surrogate at index " + i + "; it is not valid Unicode text");
      }
      bytes += c < '\u0800' ? 2 : 3;
    }
    if (bytes > maxBytes) {
      throw new IllegalArgumentException(
          what + " is " + bytes + " bytes in UTF-8; the limit is " + maxBytes);
    }
    return value;
  }

  /**
   * Whether {@code c} breaks a line (U+2028, U+2029) or reorders text (the bidirectional embedding,
   * override and isolate controls and the directional marks): in a name they forge log lines and
   * reports, so they are refused like control characters.
   */
  private static boolean isSeparatorOrBidiControl(char c) {
    return c == '\u2028'
        || c == '\u2029'
        || (c >= '\u202A' && c <= '\u202E')
        || (c >= '\u2066' && c <= '\u2069')
        || c == '\u200E'
        || c == '\u200F'
        || c == '\u061C';
  }

  /**
   * {@code d} in nanoseconds, saturated at {@link Long#MAX_VALUE} and {@link Long#MIN_VALUE}
   * instead of overflowing (a store's hint may be any duration).
   */
  public static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** Checks a lease time: positive and at most {@link LockOptions#MAX_LEASE_TIME}. */
  public static Duration leaseTime(String what, Duration leaseTime) {
    Objects.requireNonNull(leaseTime, () -> what + " must not be null");
    if (leaseTime.isNegative() || leaseTime.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + human(leaseTime));
    }
    if (leaseTime.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
      throw new IllegalArgumentException(
          what
              + " must be at most "
              + human(LockOptions.MAX_LEASE_TIME)
              + ", was "
              + human(leaseTime));
    }
    return leaseTime;
  }

  /** Checks a lease time against a store's minimum as well. */
  public static Duration leaseTime(
      String what, Duration leaseTime, Duration storeMinimum, String store) {
    leaseTime(what, leaseTime);
    if (leaseTime.compareTo(storeMinimum) < 0) {
      throw new IllegalArgumentException(
          what
              + " must be at least "
              + human(storeMinimum)
              + " on "
              + store
              + " (the store's minimum lease), was "
              + human(leaseTime));
    }
    return leaseTime;
  }

  /** Checks a wait: zero or positive, at most {@link LockOptions#MAX_WAIT}. */
  public static Duration wait(Duration wait) {
    Objects.requireNonNull(wait, "wait must not be null");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative, was " + human(wait));
    }
    if (wait.compareTo(LockOptions.MAX_WAIT) > 0) {
      throw new IllegalArgumentException(
          "wait must be at most "
              + human(LockOptions.MAX_WAIT)
              + ", was "
              + human(wait)
              + "; use acquire() to wait without a limit");
    }
    return wait;
  }

  /** Checks a backoff pause: positive and at most a minute. */
  public static Duration backoff(String what, Duration pause) {
    Objects.requireNonNull(pause, () -> what + " must not be null");
    if (pause.isNegative() || pause.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + human(pause));
    }
    if (pause.compareTo(MAX_BACKOFF) > 0) {
      throw new IllegalArgumentException(
          what + " must be at most " + human(MAX_BACKOFF) + ", was " + human(pause));
    }
    return pause;
  }

  /**
   * Parses a duration written with a unit ({@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
   * {@code 1d}) or in ISO-8601 ({@code PT10S}).
   */
  public static Duration parseDuration(String what, String text) {
    Objects.requireNonNull(text, () -> what + " must not be null");
    String t = text.strip();
    Matcher m = SIMPLE_DURATION.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      switch (m.group(2).toLowerCase(Locale.ROOT)) {
        case "ns":
          return Duration.ofNanos(n);
        case "us":
          return Duration.ofNanos(Math.multiplyExact(n, 1000L));
        case "ms":
          return Duration.ofMillis(n);
        case "s":
          return Duration.ofSeconds(n);
        case "m":
          return Duration.ofMinutes(n);
        case "h":
          return Duration.ofHours(n);
        default:
          return Duration.ofDays(n);
      }
    }
    try {
      return Duration.parse(t);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          what
              + " '"
              + text
              + "' is not a duration; write a number with a unit (500ms, 10s, 2m, 1h) or ISO-8601"
              + " (PT10S)",
          e);
    }
  }

  /** Parses {@code true} or {@code false}, nothing else. */
  public static boolean parseBoolean(String what, String text) {
    Objects.requireNonNull(text, () -> what + " must not be null");
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.equals("true")) {
      return true;
    }
    if (t.equals("false")) {
      return false;
    }
    throw new IllegalArgumentException(what + " must be true or false, was '" + text + "'");
  }

  /** A duration in the unit a person would use; never overflows, whatever the duration. */
  public static String human(Duration d) {
    if (d.isNegative()) {
      // negated() cannot represent the most negative duration.
      return d.getSeconds() == Long.MIN_VALUE && d.getNano() == 0
          ? Long.MIN_VALUE + " s"
          : "-" + human(d.negated());
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0 && d.getNano() % 1_000_000 != 0) {
      return d.getNano() + " ns";
    }
    if (d.compareTo(Duration.ofSeconds(10)) < 0) {
      return d.toMillis() + " ms";
    }
    return d.getSeconds() + " s";
  }
}
