package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pauses of a polling waiter: the doubling ceiling, the jitter range and the store's hint. */
class BackoffTest {

  static final long MS = 1_000_000;

  @Test
  @DisplayName(
      "each pause lies in the upper half of a ceiling that doubles from the minimum to the cap")
  void doublingWithEqualJitter() {
    for (int run = 0; run < 200; run++) {
      Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(70));
      long[] ceilings = {10 * MS, 20 * MS, 40 * MS, 70 * MS, 70 * MS};
      for (long ceiling : ceilings) {
        assertThat(backoff.nextNanos(null)).isBetween(ceiling / 2, ceiling);
      }
    }
  }

  @Test
  @DisplayName("the pauses are spread over the whole upper half, not pinned to one end")
  void jitterCoversTheRange() {
    long shortest = Long.MAX_VALUE;
    long longest = 0;
    for (int run = 0; run < 2000; run++) {
      long pause = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).nextNanos(null);
      shortest = Math.min(shortest, pause);
      longest = Math.max(longest, pause);
    }
    assertThat(shortest).isLessThan(55 * MS);
    assertThat(longest).isGreaterThan(95 * MS);
  }

  @Test
  @DisplayName("a store hint shortens the pause to the hint plus one millisecond")
  void hintCapsThePause() {
    for (int run = 0; run < 200; run++) {
      Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1));
      // The pause (at least 50 ms) is cut to the hint plus the millisecond after it.
      assertThat(backoff.nextNanos(Duration.ofMillis(3))).isEqualTo(4 * MS);
    }
    assertThat(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).nextNanos(Duration.ZERO))
        .as("a lock free now is polled again after a millisecond")
        .isEqualTo(MS);
    assertThat(
            new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
                .nextNanos(Duration.ofMillis(-5)))
        .as("a negative hint counts as none left")
        .isEqualTo(MS);
  }

  @Test
  @DisplayName("a hint longer than the pause does not lengthen it, even the longest duration")
  void longHintsLeaveThePause() {
    for (Duration hint :
        new Duration[] {Duration.ofSeconds(5), Duration.ofSeconds(Long.MAX_VALUE)}) {
      long pause = new Backoff(Duration.ofMillis(10), Duration.ofSeconds(1)).nextNanos(hint);
      assertThat(pause).isBetween(5 * MS, 10 * MS);
    }
  }

  @Test
  @DisplayName("a minimum below a millisecond is the floor of a pause cut short by the hint")
  void subMillisecondMinimum() {
    Backoff backoff = new Backoff(Duration.ofNanos(200_000), Duration.ofMillis(10));
    assertThat(backoff.nextNanos(Duration.ZERO)).isEqualTo(200_000);
  }
}
