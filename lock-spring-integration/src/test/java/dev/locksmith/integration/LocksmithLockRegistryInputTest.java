package dev.locksmith.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.TaskScheduler;

/**
 * Input checks, key mapping and Spring Integration's default methods: store-independent, so they
 * run once, on the in-process {@code mem:} store.
 */
class LocksmithLockRegistryInputTest {

  private LockClient client;
  private LocksmithLockRegistry registry;

  @BeforeEach
  void open() {
    client = LockClient.open("mem:registry-input-" + System.nanoTime());
    registry = new LocksmithLockRegistry(client);
  }

  @AfterEach
  void close() {
    client.close();
  }

  @Test
  @DisplayName("constructors reject a null client and a non-positive or too short lease time")
  void constructorsValidateTheirArguments() {
    assertThatThrownBy(() -> new LocksmithLockRegistry(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("client");
    assertThatThrownBy(() -> new LocksmithLockRegistry(client, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("leaseTime");
    assertThatThrownBy(() -> new LocksmithLockRegistry(client, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime");
    assertThatThrownBy(() -> new LocksmithLockRegistry(client, Duration.ofDays(8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime");
    assertThat(new LocksmithLockRegistry(client).leaseTime())
        .isEqualTo(client.options().leaseTime());
    assertThat(new LocksmithLockRegistry(client, Duration.ofSeconds(7)).leaseTime())
        .isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  @DisplayName("obtain() rejects null and invalid keys, naming lockKey")
  void obtainRejectsBadKeys() {
    assertThatThrownBy(() -> registry.obtain(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lockKey");
    assertThatThrownBy(() -> registry.obtain(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockKey");
    assertThatThrownBy(() -> registry.obtain("x".repeat(300)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockKey");
    assertThatThrownBy(() -> registry.obtain("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockKey");
    Object nullName =
        new Object() {
          @Override
          public String toString() {
            return null;
          }
        };
    assertThatThrownBy(() -> registry.obtain(nullName))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("toString()");
  }

  @Test
  @DisplayName("keys map by toString(): 42 and \"42\" are one lock")
  void keysMapByToString() {
    assertThat(registry.obtain(42)).isSameAs(registry.obtain("42"));
    assertThat(registry.obtain("42")).isNotSameAs(registry.obtain("43"));
  }

  @Test
  @DisplayName("newCondition() is unsupported")
  void newConditionIsUnsupported() {
    assertThatThrownBy(() -> registry.obtain("k").newCondition())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  @DisplayName("expireUnusedOlderThan() rejects a negative age")
  void expireRejectsNegativeAge() {
    assertThatThrownBy(() -> registry.expireUnusedOlderThan(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("age");
  }

  @Test
  @DisplayName("renewLock() rejects null and non-positive arguments, and keys never obtained")
  void renewLockValidatesItsArguments() {
    assertThatThrownBy(() -> registry.renewLock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lockKey");
    assertThatThrownBy(() -> registry.renewLock("k", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> registry.renewLock("k", Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> registry.renewLock("never-obtained"))
        .isInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(() -> registry.setRenewalTaskScheduler((TaskScheduler) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("renewalTaskScheduler");
  }

  @Test
  @DisplayName("tryLock(time, null) names the unit; a negative time means do not wait")
  void tryLockValidatesItsUnit() throws Exception {
    Lock lock = registry.obtain("k");
    assertThatThrownBy(() -> lock.tryLock(1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("unit");
    assertThat(lock.tryLock(-5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    lock.unlock();
  }

  @Test
  @DisplayName(
      "executeLocked() (Spring Integration's default methods) runs the task holding the lock")
  void executeLockedRunsTheTaskHoldingTheLock() throws Exception {
    AtomicBoolean held = new AtomicBoolean();
    registry.executeLocked("job", () -> held.set(registry.currentLease("job").isPresent()));
    assertThat(held).isTrue();
    assertThat(registry.currentLease("job")).isEmpty();
    String result =
        registry.executeLocked(
            "job",
            Duration.ofSeconds(1),
            () -> "ran with token " + registry.currentLease("job").orElseThrow().fencingToken());
    assertThat(result).startsWith("ran with token ");
    Lock other = new LocksmithLockRegistry(client).obtain("job");
    other.lock();
    try {
      assertThatThrownBy(
              () -> registry.executeLocked("job", Duration.ofMillis(50), () -> held.set(false)))
          .isInstanceOf(TimeoutException.class);
      assertThat(held).isTrue();
    } finally {
      other.unlock();
    }
  }
}
