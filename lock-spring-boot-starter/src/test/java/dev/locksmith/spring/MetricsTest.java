package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockTimeoutException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Locksmith's meters after a known sequence of acquires, on a real Redis server, in the registry
 * Spring Boot's Actuator configures; and the observation around {@link Locked} methods.
 */
@SpringBootTest(classes = LockedApp.class)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetricsTest {

  @DynamicPropertySource
  static void store(DynamicPropertyRegistry registry) {
    registry.add("locksmith.uri", SharedRedis::uri);
  }

  @Autowired LockClient client;
  @Autowired MeterRegistry registry;
  @Autowired Work work;

  private long acquires(String outcome) {
    Timer t = registry.find("locksmith.acquire").tag("outcome", outcome).timer();
    return t == null ? 0 : t.count();
  }

  private double lost(String kind) {
    return registry.get("locksmith.lost").tag("kind", kind).counter().count();
  }

  private double held() {
    return registry.get("locksmith.held").gauge().value();
  }

  @Test
  @Order(1) // counts from a fresh context
  @DisplayName("acquire outcomes, held leases, renewals and losses are counted as they happen")
  void knownSequence() throws Exception {
    Lease first = client.lock("metrics:a").tryAcquire().orElseThrow(); // acquired
    assertThat(client.lock("metrics:a").tryAcquire()).isEmpty(); // busy
    assertThatThrownBy(() -> client.lock("metrics:a").acquire(Duration.ofMillis(50)))
        .isInstanceOf(LockTimeoutException.class); // timeout
    assertThat(acquires("acquired")).isEqualTo(1);
    assertThat(acquires("busy")).isEqualTo(1);
    assertThat(acquires("timeout")).isEqualTo(1);
    assertThat(
            registry
                .get("locksmith.acquire")
                .tag("outcome", "timeout")
                .timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(50);
    assertThat(held()).isEqualTo(1);

    Lease second =
        client.lock("metrics:b").withLeaseTime(Duration.ofMillis(600)).tryAcquire().orElseThrow();
    assertThat(held()).isEqualTo(2);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                registry.find("locksmith.renewal").tag("outcome", "renewed").timer() != null
                    && registry.get("locksmith.renewal").tag("outcome", "renewed").timer().count()
                        > 0);
    first.release();
    assertThat(held()).isEqualTo(1);

    SharedRedis.dropEverything(); // the store forgets metrics:b
    await().atMost(Duration.ofSeconds(10)).until(() -> lost("not_held") == 1);
    assertThat(lost("expired") + lost("renewal_failed") + lost("session_lost")).isZero();
    assertThat(registry.get("locksmith.renewal").tag("outcome", "lost").timer().count())
        .isEqualTo(1);
    assertThat(held()).isZero();
    assertThat(second.isValid()).isFalse();
    assertThat(acquires("error")).isZero();
    // docs/spring.md: the store tag is the kind of store, never its address.
    assertThat(registry.get("locksmith.held").gauge().getId().getTag("store")).isEqualTo("redis");
    assertThat(registry.get("locksmith.acquire").timers())
        .allSatisfy(t -> assertThat(t.getId().getTag("store")).isEqualTo("redis"));
    assertThat(registry.get("locksmith.renewal").timers())
        .allSatisfy(t -> assertThat(t.getId().getTag("store")).isEqualTo("redis"));
  }

  @Test
  @DisplayName("the meters are listed by /actuator/metrics, and @Locked calls are observed")
  void listedAndObserved() {
    work.contextName();
    work.skipOptional("observed");
    assertThat(BootLine.meterNames(registry))
        .contains("locksmith.acquire", "locksmith.held", "locksmith.lost", "locksmith.locked");
    Timer locked =
        registry
            .get("locksmith.locked")
            .tag("locksmith.lock", "hold:#{#name}")
            .tag("locksmith.outcome", "ran")
            .timer();
    assertThat(locked.count()).isEqualTo(1);
    assertThat(
            registry
                .get("locksmith.locked")
                .tag("locksmith.lock", "context")
                .tag("locksmith.caller", "Work.contextName()")
                .timer()
                .count())
        .isEqualTo(1);
  }

  @Test
  @DisplayName(
      "operator meters: renewal lag and release margin as fractions of the lease, waiters now"
          + " (also per name), and the wait until the hand-off")
  void operatorMeters() throws Exception {
    Lease renewed =
        client.lock("metrics:lag").withLeaseTime(Duration.ofMillis(600)).tryAcquire().orElseThrow();
    long lagsBefore = registry.get("locksmith.renewal.lag").summary().count();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("locksmith.renewal.lag").summary().count() >= lagsBefore + 2);
    // Due at a third of the lease; even a starved watchdog here sends them before it runs out.
    assertThat(registry.get("locksmith.renewal.lag").summary().max()).isBetween(0.0, 2.0 / 3);
    long marginsBefore = registry.get("locksmith.release.margin").summary().count();
    renewed.release();
    assertThat(registry.get("locksmith.release.margin").summary().count())
        .isEqualTo(marginsBefore + 1);
    assertThat(registry.get("locksmith.release.margin").summary().max()).isBetween(0.0, 1.0);

    Lease holder = client.lock("metrics:queue").tryAcquire().orElseThrow();
    java.util.concurrent.CompletableFuture<Long> waiter =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try (Lease l = client.lock("metrics:queue").acquire(Duration.ofSeconds(30))) {
                return l.fencingToken();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("locksmith.waiters").gauge().value() == 1);
    assertThat(
            registry.get("locksmith.waiters.by.name").tag("lock", "metrics:queue").gauge().value())
        .isEqualTo(1);
    Thread.sleep(50); // part of the wait the hand-off time must include
    holder.release();
    assertThat(waiter.get(30, java.util.concurrent.TimeUnit.SECONDS))
        .isGreaterThan(holder.fencingToken());
    Timer handOff = registry.get("locksmith.wait").tag("outcome", "acquired").timer();
    assertThat(handOff.count()).isEqualTo(1);
    assertThat(handOff.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(50);
    assertThat(registry.get("locksmith.waiters").gauge().value()).isZero();
  }
}
