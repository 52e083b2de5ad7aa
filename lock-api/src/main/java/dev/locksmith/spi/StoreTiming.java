package dev.locksmith.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * The time limits of a store: the shortest lease it can hold and the granularity of its clock
 * (memcached: whole seconds).
 *
 * @param minimumLease leases shorter than this are refused with {@link IllegalArgumentException}
 * @param granularity the store rounds lease times to this unit; the test kit allows for it
 */
public record StoreTiming(Duration minimumLease, Duration granularity) {

  /** Millisecond leases, millisecond clock: most stores. */
  public static final StoreTiming MILLISECONDS =
      new StoreTiming(Duration.ofMillis(1), Duration.ofMillis(1));

  /** Checks both durations are positive. */
  public StoreTiming {
    Objects.requireNonNull(minimumLease, "minimumLease");
    Objects.requireNonNull(granularity, "granularity");
    if (minimumLease.isNegative() || minimumLease.isZero()) {
      throw new IllegalArgumentException("minimumLease must be positive");
    }
    if (granularity.isNegative() || granularity.isZero()) {
      throw new IllegalArgumentException("granularity must be positive");
    }
  }
}
