package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InputRulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"orders:42", "a", "名前", "emoji-😀", "'; DROP TABLE locks; --", "{tag}"})
  @DisplayName("ordinary names, however odd, are accepted as data")
  void acceptsNames(String name) {
    assertThat(InputRules.name(name)).isEqualTo(name);
  }

  @Test
  @DisplayName("names are limited to 256 UTF-8 bytes, counting multibyte characters as bytes")
  void nameLength() {
    assertThat(InputRules.name("x".repeat(256))).hasSize(256);
    assertThatThrownBy(() -> InputRules.name("x".repeat(257)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lock name is 257 bytes in UTF-8; the limit is 256");
    assertThatThrownBy(() -> InputRules.name("é".repeat(129)))
        .hasMessage("lock name is 258 bytes in UTF-8; the limit is 256");
  }

  @ParameterizedTest
  @ValueSource(strings = {"x", "\u00e9", "\u07ff", "\u0800", "\u540d", "\uffff", "\ud83d\ude00"})
  @DisplayName("the length limit counts each character's UTF-8 bytes as the encoder does")
  void nameLengthPerWidth(String character) {
    int width = character.getBytes(StandardCharsets.UTF_8).length;
    int fits = 256 / width;
    assertThat(InputRules.name("x".repeat(256 - fits * width) + character.repeat(fits)))
        .as("exactly 256 bytes of %s", character)
        .isNotNull();
    assertThatThrownBy(
            () -> InputRules.name("x".repeat(257 - fits * width) + character.repeat(fits)))
        .hasMessage("lock name is 257 bytes in UTF-8; the limit is 256");
  }

  @Test
  @DisplayName("null, empty, blank, control characters and unpaired surrogates are refused by name")
  void refusesBadNames() {
    assertThatThrownBy(() -> InputRules.name(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("lock name must not be null");
    assertThatThrownBy(() -> InputRules.name("")).hasMessage("lock name must not be empty");
    assertThatThrownBy(() -> InputRules.name("x\t"))
        .hasMessage(
            "lock name must not contain control characters, line separators or bidirectional"
                + " controls; found U+0009 at index 1");
    assertThatThrownBy(() -> InputRules.name("   "))
        .hasMessage("lock name must not be blank (only white space)");
    assertThatThrownBy(() -> InputRules.name("a\nb"))
        .hasMessage(
            "lock name must not contain control characters, line separators or bidirectional"
                + " controls; found U+000A at index 1");
    assertThatThrownBy(() -> InputRules.name("a\uD800"))
        .hasMessageContaining("unpaired surrogate at index 1");
    assertThatThrownBy(() -> InputRules.name("\uDC00"))
        .hasMessageContaining("unpaired surrogate at index 0");
  }

  @Test
  @DisplayName("lease times must be positive and at most seven days; waits may be zero")
  void durations() {
    assertThatThrownBy(() -> InputRules.leaseTime("leaseTime", Duration.ZERO))
        .hasMessage("leaseTime must be positive, was 0 ms");
    assertThatThrownBy(() -> InputRules.leaseTime("leaseTime", Duration.ofDays(8)))
        .hasMessageContaining("must be at most");
    assertThatThrownBy(
            () ->
                InputRules.leaseTime(
                    "leaseTime", Duration.ofMillis(500), Duration.ofSeconds(1), "memcached"))
        .hasMessageContaining("at least 1000 ms on memcached");
    assertThat(InputRules.wait(Duration.ZERO)).isZero();
    assertThatThrownBy(() -> InputRules.wait(Duration.ofMillis(-1)))
        .hasMessage("wait must not be negative, was -1 ms");
    assertThatThrownBy(() -> InputRules.wait(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  @DisplayName("durations parse with units and in ISO-8601, and nothing else")
  void parsesDurations() {
    assertThat(InputRules.parseDuration("x", "250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(InputRules.parseDuration("x", "10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(InputRules.parseDuration("x", "2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(InputRules.parseDuration("x", "PT1H")).isEqualTo(Duration.ofHours(1));
    assertThatThrownBy(() -> InputRules.parseDuration("x", "ten seconds"))
        .hasMessageContaining("x 'ten seconds' is not a duration");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\u2028", "\u2029", "\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067",
        "\u2068", "\u2069", "\u200E", "\u200F", "\u061C"
      })
  @DisplayName("line and paragraph separators and bidirectional controls are refused like controls")
  void refusesSeparatorsAndBidiControls(String c) {
    String hex = String.format("U+%04X", (int) c.charAt(0));
    assertThatThrownBy(() -> InputRules.name("orders" + c + "42"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "lock name must not contain control characters, line separators or bidirectional"
                + " controls; found "
                + hex
                + " at index 6");
    assertThatThrownBy(() -> InputRules.owner("w" + c))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(hex + " at index 1");
  }

  @Test
  @DisplayName("human() writes any duration without overflowing")
  void humanNeverOverflows() {
    assertThat(InputRules.human(Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE + " s");
    assertThat(InputRules.human(Duration.ofSeconds(Long.MIN_VALUE)))
        .isEqualTo(Long.MIN_VALUE + " s");
    assertThat(InputRules.human(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    assertThat(InputRules.human(Duration.ofNanos(1500))).isEqualTo("1500 ns");
    assertThat(InputRules.human(Duration.ofMillis(-1))).isEqualTo("-1 ms");
    // The unit changes at 10 s: milliseconds below, whole seconds from there on.
    assertThat(InputRules.human(Duration.ofMillis(9999))).isEqualTo("9999 ms");
    assertThat(InputRules.human(Duration.ofSeconds(10))).isEqualTo("10 s");
  }

  @Test
  @DisplayName("nulls are refused with the name of what was null")
  void nullsNamed() {
    assertThatThrownBy(() -> InputRules.leaseTime("leaseTime", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("leaseTime must not be null");
    assertThatThrownBy(() -> InputRules.backoff("backoffMax", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("backoffMax must not be null");
    assertThatThrownBy(() -> InputRules.parseDuration("waitFor", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("waitFor must not be null");
    assertThatThrownBy(() -> InputRules.parseBoolean("autoRenew", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("autoRenew must not be null");
  }

  @Test
  @DisplayName(
      "the limits themselves are allowed: the longest lease, a lease of exactly the store's"
          + " minimum, the longest backoff")
  void limitsAreInclusive() {
    assertThat(InputRules.leaseTime("leaseTime", dev.locksmith.LockOptions.MAX_LEASE_TIME))
        .isEqualTo(dev.locksmith.LockOptions.MAX_LEASE_TIME);
    assertThat(InputRules.leaseTime("leaseTime", Duration.ofSeconds(2), Duration.ofSeconds(2), "s"))
        .isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(
            () ->
                InputRules.leaseTime(
                    "leaseTime", Duration.ofMillis(1999), Duration.ofSeconds(2), "s"))
        .hasMessageContaining("must be at least 2000 ms on s");
    assertThat(InputRules.backoff("backoffMax", Duration.ofMinutes(1)))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(InputRules.wait(dev.locksmith.LockOptions.MAX_WAIT))
        .isEqualTo(dev.locksmith.LockOptions.MAX_WAIT);
    assertThat(InputRules.parseDuration("t", "5us")).isEqualTo(Duration.ofNanos(5_000));
    assertThat(InputRules.parseDuration("t", "7ns")).isEqualTo(Duration.ofNanos(7));
    assertThatThrownBy(() -> InputRules.backoff("backoffMax", Duration.ofSeconds(61)))
        .hasMessageContaining("must be at most");
  }
}
