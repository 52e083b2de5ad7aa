package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockClient;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** URI parsing and option checks that fail before any connection is made. */
class RedisLockProviderTest {

  @Test
  @DisplayName("the provider claims the Redis schemes")
  void schemes() {
    assertThat(new RedisLockProvider().schemes())
        .contains("redis", "rediss", "redis-sentinel", "redis-cluster", "redlock");
  }

  @Test
  @DisplayName("an unknown strategy is refused with a message naming the choices")
  void badStrategy() {
    assertThatThrownBy(() -> LockClient.open("redis://127.0.0.1:1?strategy=magic"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("script")
        .hasMessageContaining("watch");
  }

  @Test
  @DisplayName("Redlock options on a single-node URI are refused")
  void redlockOptionOnSingleNode() {
    assertThatThrownBy(() -> LockClient.open("redis://127.0.0.1:1?driftFactor=0.01"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("driftFactor");
  }

  @Test
  @DisplayName("strategy=watch on a cluster or Redlock URI is refused")
  void watchOnlyOnSingleNode() {
    assertThatThrownBy(
            () -> LockClient.open("redis-cluster://127.0.0.1:1,127.0.0.1:2?strategy=watch"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("single node");
  }

  @Test
  @DisplayName("an unknown option is refused before connecting")
  void unknownOption() {
    assertThatThrownBy(() -> LockClient.open("redis://127.0.0.1:1?colour=blue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("colour");
  }

  @Test
  @DisplayName("a multi-host URI with a malformed host or port is refused, naming it")
  void malformedHost() {
    assertThatThrownBy(() -> LockClient.open("redlock://127.0.0.1:1,localhost:x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port 'x'");
    assertThatThrownBy(() -> LockClient.open("redis-cluster://127.0.0.1:1,,127.0.0.1:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty host");
  }

  @Test
  @DisplayName("a bad timeout and a bad drift factor are refused")
  void badNumbers() {
    assertThatThrownBy(() -> LockClient.open("redis://127.0.0.1:1?timeout=soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
    assertThatThrownBy(() -> LockClient.open("redlock://127.0.0.1:1?driftFactor=0.9"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("driftFactor");
  }
}
