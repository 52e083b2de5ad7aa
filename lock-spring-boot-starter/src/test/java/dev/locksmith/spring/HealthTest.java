package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockObserver;
import dev.locksmith.LockStoreException;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code locksmith} health indicator follows a real redis-server that is killed and started
 * again; the store failure also shows in {@code locksmith.acquire{outcome=error}}.
 */
class HealthTest {

  private ServerProcess redis;
  private ConfigurableApplicationContext app;

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  @DisplayName("UP while the store answers, DOWN with store and reason when it is gone, UP again")
  void followsTheStore() {
    redis = RedisServer.startVolatile();
    app =
        new SpringApplicationBuilder(LockedApp.class)
            .properties(
                Map.of(
                    "locksmith.uri",
                    RedisServer.uri(redis) + "?timeout=500ms",
                    "locksmith.health.timeout",
                    "3s"))
            .run();
    assertThat(BootLine.health(app).status()).isEqualTo("UP");
    assertThat(BootLine.health(app).details())
        .containsEntry("store", "redis://127.0.0.1:" + redis.port());

    redis.kill();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> BootLine.health(app).status().equals("DOWN"));
    assertThat(BootLine.health(app).details())
        .containsEntry("store", "redis://127.0.0.1:" + redis.port())
        .containsKey("reason");
    assertThat((String) BootLine.health(app).details().get("reason")).isNotBlank();
    LockClient client = app.getBean(LockClient.class);
    assertThatThrownBy(() -> client.lock("while-down").tryAcquire())
        .isInstanceOf(LockStoreException.class);
    assertThat(
            app.getBean(MeterRegistry.class)
                .get("locksmith.acquire")
                .tag("outcome", "error")
                .timer()
                .count())
        .isEqualTo(1);

    redis.restart();
    await().atMost(Duration.ofSeconds(30)).until(() -> BootLine.health(app).status().equals("UP"));
    assertThat(client.lock("after-restart").tryAcquire()).isPresent();
  }

  /** A renewal thread held up once, as by a long GC pause or a starved machine. */
  @Configuration(proxyBeanMethods = false)
  static class StalledRenewals {
    static final Duration STALL = Duration.ofSeconds(2);
    final AtomicBoolean stalled = new AtomicBoolean();

    @Bean
    LockObserver stallOnce() {
      return new LockObserver() {
        @Override
        public void renewalEnded(
            String store, String lockName, RenewalOutcome outcome, Duration took) {
          if (lockName.equals("lagging") && stalled.compareAndSet(false, true)) {
            try {
              Thread.sleep(STALL.toMillis());
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }
      };
    }
  }

  @Test
  @DisplayName(
      "DOWN while renewals lag past the threshold (a stalled watchdog), UP again a window later")
  void downWhileRenewalsLag() {
    app =
        new SpringApplicationBuilder(LockedApp.class, StalledRenewals.class)
            .properties(
                Map.of(
                    "locksmith.uri", SharedRedis.uri(),
                    "locksmith.health.renewal-lag-threshold", "0.2",
                    "locksmith.health.renewal-lag-window", "2s"))
            .run();
    assertThat(BootLine.health(app).status()).isEqualTo("UP");
    // Due at a third of 3 s; the first renewal's thread then stalls 2 s, so the next one is sent
    // about a second (a third of the lease) late: past 0.2.
    Lease lease =
        app.getBean(LockClient.class)
            .lock("lagging")
            .withLeaseTime(Duration.ofSeconds(3))
            .tryAcquire()
            .orElseThrow();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> BootLine.health(app).status().equals("DOWN"));
    assertThat((String) BootLine.health(app).details().get("reason"))
        .contains("renewals lag", "lock 'lagging'", "threshold of 0.20");
    assertThat((Double) BootLine.health(app).details().get("renewalLag")).isGreaterThan(0.2);
    lease.release();
    await().atMost(Duration.ofSeconds(20)).until(() -> BootLine.health(app).status().equals("UP"));
  }
}
