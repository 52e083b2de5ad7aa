package dev.locksmith.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockClient;
import java.time.Duration;
import java.time.Instant;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Bad input fails at once and names the problem; on {@code mem:}, which every module has. */
class BadInputTest {

  private final LockClient client = LockClient.open("mem:shedlock-bad-input");
  private final LocksmithLockProvider provider = new LocksmithLockProvider(client, "jobs:");

  @AfterEach
  void close() {
    provider.close();
    client.close();
  }

  private static LockConfiguration config(String name, Duration atMost) {
    return new LockConfiguration(Instant.now(), name, atMost, Duration.ZERO);
  }

  @Test
  @DisplayName("nulls are NullPointerExceptions naming the argument")
  void nulls() {
    assertThatThrownBy(() -> new LocksmithLockProvider(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("client");
    assertThatThrownBy(() -> new LocksmithLockProvider(client, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("namePrefix");
    assertThatThrownBy(() -> LocksmithLockProvider.open(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> LocksmithLockProvider.open("mem:x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("namePrefix");
    assertThatThrownBy(() -> provider.lock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lockConfiguration");
    SimpleLock lock = provider.lock(config("report", Duration.ofSeconds(10))).orElseThrow();
    assertThatThrownBy(() -> lock.extend(null, Duration.ZERO))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lockAtMostFor");
    assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lockAtLeastFor");
    lock.unlock();
  }

  @Test
  @DisplayName("names Locksmith refuses are IllegalArgumentExceptions naming the name")
  void badNames() {
    assertThatThrownBy(() -> provider.lock(config("bad\nname", Duration.ofSeconds(10))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jobs:bad\\u000Aname")
        .hasMessageContaining("not a valid Locksmith lock name")
        .hasMessageContaining("control");
    assertThatThrownBy(() -> provider.lock(config("x".repeat(300), Duration.ofSeconds(10))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a valid Locksmith lock name")
        .hasMessageContaining("256");
    LocksmithLockProvider unprefixed = new LocksmithLockProvider(client);
    try {
      assertThatThrownBy(() -> unprefixed.lock(config("   ", Duration.ofSeconds(10))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("blank");
    } finally {
      unprefixed.close();
    }
    assertThatThrownBy(() -> new LocksmithLockProvider(client, "jobs\u0000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namePrefix")
        .hasMessageContaining("control");
    assertThatThrownBy(() -> new LocksmithLockProvider(client, "p".repeat(129)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namePrefix")
        .hasMessageContaining("128");
  }

  @Test
  @DisplayName("a lockAtMostFor that no lease can be is an IllegalArgumentException")
  void badDurations() {
    assertThatThrownBy(() -> provider.lock(config("report", Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockAtMostFor")
        .hasMessageContaining("positive");
    assertThatThrownBy(() -> provider.lock(config("report", Duration.ofDays(8))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockAtMostFor")
        .hasMessageContaining("at most");
    SimpleLock lock = provider.lock(config("report", Duration.ofSeconds(10))).orElseThrow();
    assertThatThrownBy(() -> lock.extend(Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockAtMostFor");
  }

  @Test
  @DisplayName("a closed provider refuses to lock; an unreachable store is a LockException")
  void closedAndUnreachable() {
    provider.close();
    assertThatThrownBy(() -> provider.lock(config("report", Duration.ofSeconds(10))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    provider.close(); // Again: nothing.
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    assertThatThrownBy(() -> LocksmithLockProvider.open("redis://127.0.0.1:1"))
        .isInstanceOf(LockException.class)
        .hasMessageContaining("could not open the lock store")
        .hasCauseInstanceOf(dev.locksmith.LockStoreException.class);
  }

  @Test
  @DisplayName("the prefix is put before every name in the store")
  void prefix() {
    assertThat(provider.namePrefix()).isEqualTo("jobs:");
    SimpleLock lock = provider.lock(config("report", Duration.ofSeconds(10))).orElseThrow();
    assertThat(client.lock("jobs:report").isLocked()).isTrue();
    assertThat(client.lock("report").isLocked()).isFalse();
    lock.unlock();
    assertThat(client.lock("jobs:report").isLocked()).isFalse();
  }
}
