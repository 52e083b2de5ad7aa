package dev.locksmith.spring;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.metrics.MetricsEndpoint;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.context.ApplicationContext;

/**
 * What the starter's tests name that Spring Boot 4 moved, as Spring Boot 3.5 has it: its
 * auto-configurations, health and metrics endpoint types. lock-spring-boot-starter has this class
 * for Boot 4, so that the same tests run on both lines.
 */
final class BootLine {

  /** Spring Boot's DataSource auto-configuration. */
  static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;

  /** Spring Data Redis's auto-configuration. */
  static final Class<?> SPRING_DATA_REDIS = RedisAutoConfiguration.class;

  private BootLine() {}

  /** Asks the application's {@code locksmith} health indicator once. */
  static HealthAnswer health(ApplicationContext app) {
    Health health = app.getBean("locksmithHealthIndicator", HealthIndicator.class).health();
    return new HealthAnswer(health.getStatus().getCode(), health.getDetails());
  }

  /** The meter names {@code /actuator/metrics} lists. */
  static Set<String> meterNames(MeterRegistry registry) {
    return new MetricsEndpoint(registry).listNames().getNames();
  }
}
