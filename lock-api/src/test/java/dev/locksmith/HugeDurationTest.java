package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Durations far beyond any limit are refused with {@link IllegalArgumentException} naming the
 * argument, at every entry point; nothing overflows on the way, not even the message.
 */
class HugeDurationTest {

  private final LockClient client = LockClient.open("mem:huge-" + UUID.randomUUID());

  @AfterEach
  void close() {
    client.close();
  }

  static Stream<Duration> huge() {
    return Stream.of(
        Duration.ofDays(106_752),
        Duration.ofSeconds(Long.MAX_VALUE),
        ChronoUnit.FOREVER.getDuration(),
        Duration.ofSeconds(Long.MIN_VALUE),
        Duration.ofSeconds(Long.MIN_VALUE).plusNanos(1));
  }

  private static void refused(ThrowingCallable call, String naming) {
    assertThatThrownBy(call)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(naming);
  }

  @ParameterizedTest
  @MethodSource("huge")
  @DisplayName("waits: acquire, tryAcquire and lockAll refuse them, naming the wait")
  void waits(Duration d) {
    DistributedLock lock = client.lock("w");
    refused(() -> lock.acquire(d), "wait");
    refused(() -> lock.tryAcquire(d), "wait");
    refused(() -> client.lockAll("a", "b").acquire(d), "wait");
    refused(() -> client.lockAll("a", "b").tryAcquire(d), "wait");
  }

  @ParameterizedTest
  @MethodSource("huge")
  @DisplayName("lease times: withLeaseTime, extend and the options builder refuse them")
  void leaseTimes(Duration d) {
    refused(() -> client.lock("l").withLeaseTime(d), "leaseTime");
    refused(() -> LockOptions.builder().leaseTime(d), "leaseTime");
    try (Lease lease = client.lock("l").tryAcquire().orElseThrow()) {
      refused(() -> lease.extend(d), "leaseTime");
    }
  }

  @ParameterizedTest
  @MethodSource("huge")
  @DisplayName("backoff: the options builder refuses them, naming backoffMin or backoffMax")
  void backoff(Duration d) {
    refused(() -> LockOptions.builder().backoffMin(d), "backoffMin");
    refused(() -> LockOptions.builder().backoffMax(d), "backoffMax");
    refused(() -> LockOptions.builder().backoff(Duration.ofMillis(1), d), "backoffMax");
    refused(() -> LockOptions.builder().backoff(d, Duration.ofMillis(1)), "backoffMin");
  }

  @ParameterizedTest
  @MethodSource("hugeText")
  @DisplayName("URI options: huge durations in the query are refused, naming the option")
  void uriOptions(String text) {
    for (String option : new String[] {"leaseTime", "backoffMin", "backoffMax"}) {
      refused(() -> LockClient.open("mem:huge-uri?" + option + "=" + text).close(), option);
    }
  }

  static Stream<String> hugeText() {
    return Stream.of(
        "999999999d",
        "999999999999d",
        "999999999999h",
        "999999999999us",
        "PT2562047788015215H",
        "P106752D",
        "PT" + Long.MAX_VALUE + "S");
  }
}
