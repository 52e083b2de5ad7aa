package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Promise 9: bad input fails fast, naming the problem; names are data. */
public interface BadInputRules extends KitTest {

  @ParameterizedTest(name = "[{index}] a lock name with {0}")
  @MethodSource("dev.locksmith.tck.KitNames#badNames")
  default void rule_10_1_badNamesRefused(String what, String name) {
    Kit kit = kit();
    LockClient a = kit.client();
    assertThatThrownBy(() -> a.lock(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name");
    assertThatThrownBy(() -> a.lockAll(kit.name("ok"), name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name");
    assertThatThrownBy(() -> a.readWriteLock(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name");
  }

  @ParameterizedTest(name = "[{index}] a name with {0} is data")
  @MethodSource("dev.locksmith.tck.KitNames#dataNames")
  default void rule_10_2_namesAreData(String what, String suffix) {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    String name = suffix.length() >= 64 ? suffix : kit.name(suffix);
    Lease lease = a.lock(name).tryAcquire().orElseThrow();
    assertThat(lease.name()).isEqualTo(name);
    assertThat(b.lock(name).isLocked()).as("isLocked from another client").isTrue();
    assertThat(b.lock(name).tryAcquire()).as("tryAcquire from another client").isEmpty();
    lease.release();
    Optional<Lease> next = b.lock(name).tryAcquire();
    assertThat(next).as("after release").isPresent();
    assertThat(next.get().name()).isEqualTo(name);
    next.get().release();
  }

  @Test
  default void rule_10_3_distinctNamesDoNotCollide() {
    Kit kit = kit();
    List<String> names =
        List.of(
            kit.name("a:b"),
            kit.name("a_b"),
            kit.name("a/b"),
            kit.name("a%3Ab"),
            kit.name("A:B"),
            kit.name("a:b "),
            kit.name("é"),
            kit.name("e\u0301"),
            kit.name("a:b:"),
            kit.name("a"),
            // Each pair differs only outside Latin-1 (a latin1 column or getBytes(ISO_8859_1)
            // turns both into "??"): CJK, and emoji outside the Basic Multilingual Plane.
            kit.name("订单"),
            kit.name("库存"),
            kit.name("🔒"),
            kit.name("😀"));
    List<Lease> held = new ArrayList<>();
    for (String n : names) {
      Optional<Lease> l = kit.client().lock(n).tryAcquire();
      assertThat(l).as("lock '%s' while the similar names are held", n).isPresent();
      held.add(l.get());
    }
    held.forEach(Lease::release);
  }

  @Test
  default void rule_10_4_nullNames() {
    Kit kit = kit();
    LockClient a = kit.client();
    assertThatThrownBy(() -> a.lock(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> a.readWriteLock(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> a.lockAll((List<String>) null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> a.lockAll(kit.name("a"), null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  default void rule_10_5_badNameLists() {
    Kit kit = kit();
    LockClient a = kit.client();
    assertThatThrownBy(() -> a.lockAll(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> a.lockAll(kit.name("a"), kit.name("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct");
  }

  @Test
  default void rule_10_6_badLeaseTimes() {
    Kit kit = kit();
    DistributedLock lock = kit.client().lock(kit.name("x"));
    for (Duration bad :
        List.of(
            Duration.ZERO,
            Duration.ofMillis(-1),
            Duration.ofNanos(-1),
            LockOptions.MAX_LEASE_TIME.plusNanos(1),
            Duration.ofDays(365))) {
      assertThatThrownBy(() -> lock.withLeaseTime(bad))
          .as("withLeaseTime(%s)", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("leaseTime");
      assertThatThrownBy(() -> LockOptions.builder().leaseTime(bad))
          .as("LockOptions.leaseTime(%s)", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("leaseTime");
    }
    assertThatThrownBy(() -> lock.withLeaseTime(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  default void rule_10_7_badWaits() {
    Kit kit = kit();
    LockClient a = kit.client();
    DistributedLock lock = a.lock(kit.name("x"));
    for (Duration bad : List.of(Duration.ofMillis(-1), LockOptions.MAX_WAIT.plusSeconds(1))) {
      assertThatThrownBy(() -> lock.tryAcquire(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("wait");
      assertThatThrownBy(() -> lock.acquire(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("wait");
      assertThatThrownBy(() -> a.lockAll(kit.name("y")).acquire(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("wait");
    }
    assertThatThrownBy(() -> lock.acquire(null)).isInstanceOf(NullPointerException.class);
    assertThat(kit.client().lock(kit.name("x")).tryAcquire()).as("nothing was taken").isPresent();
  }

  @Test
  default void rule_10_8_badExtend() {
    Kit kit = kit();
    Lease lease = kit.client().lock(kit.name("x")).tryAcquire().orElseThrow();
    assertThatThrownBy(() -> lease.extend(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime");
    assertThatThrownBy(() -> lease.extend(LockOptions.MAX_LEASE_TIME.plusSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(lease.isValid()).isTrue();
    lease.release();
  }

  @Test
  default void rule_10_9_badOwners() {
    Kit kit = kit();
    DistributedLock lock = kit.client().lock(kit.name("x"));
    for (String bad : List.of("", "  ", "a\nb", "o".repeat(129), "\u0000", "a\u202Eb")) {
      assertThatThrownBy(() -> lock.withOwner(bad))
          .as("withOwner(%s)", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("owner");
    }
    assertThatThrownBy(() -> lock.withOwner(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> LockOptions.builder().owner("p".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("owner");
  }

  @Test
  default void rule_10_10_badOptions() {
    assertThatThrownBy(
            () -> LockOptions.builder().backoff(Duration.ofMillis(50), Duration.ofMillis(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backoffMin");
    assertThatThrownBy(() -> LockOptions.builder().backoffMin(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backoffMin");
    assertThatThrownBy(() -> LockOptions.builder().keyPrefix("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix");
    assertThatThrownBy(() -> LockOptions.builder().keyPrefix("k".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix");
  }

  @Test
  default void rule_10_11_closedClient() {
    Kit kit = kit();
    LockClient a = kit.client();
    a.close();
    assertThatThrownBy(() -> a.lock(kit.name("x"))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  default void rule_10_12_hugeDurationsRefused() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    DistributedLock lock = a.lock(kit.name("x"));
    Lease lease = a.lock(kit.name("held")).tryAcquire().orElseThrow();
    for (Duration huge :
        List.of(
            Duration.ofSeconds(Long.MAX_VALUE),
            ChronoUnit.FOREVER.getDuration(),
            Duration.ofDays(106_752),
            Duration.ofSeconds(Long.MIN_VALUE))) {
      assertThatThrownBy(() -> lock.acquire(huge))
          .as("acquire(%s)", huge)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> lock.tryAcquire(huge))
          .as("tryAcquire(%s)", huge)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> lock.withLeaseTime(huge))
          .as("withLeaseTime(%s)", huge)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> lease.extend(huge))
          .as("extend(%s)", huge)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> a.lockAll(kit.name("y")).acquire(huge))
          .as("lockAll acquire(%s)", huge)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> LockOptions.builder().backoffMax(huge))
          .as("backoffMax(%s)", huge)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(lease.isValid()).as("the lease after refused extends").isTrue();
    lease.release();
  }

  @Test
  default void rule_10_13_optionsInForce() {
    LockClient a = kit().client();
    assertThat(a.options().owner()).as("the owner prefix in force").isPresent();
    assertThat(a.options().keyPrefix()).as("the key prefix in force").isPresent();
    assertThat(a.options().leaseTime()).as("the lease time in force").isPositive();
  }
}
