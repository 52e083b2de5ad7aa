package dev.locksmith.spring;

import dev.locksmith.spring.internal.MicrometerLockObserver;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures Locksmith's Micrometer meters ({@code locksmith.acquire}, {@code locksmith.held},
 * {@code locksmith.lost}, {@code locksmith.renewal}, {@code locksmith.renewal.lag}, {@code
 * locksmith.release.margin}, {@code locksmith.wait}, {@code locksmith.waiters}) when the
 * application has a {@link MeterRegistry}; they then show in {@code /actuator/metrics}. See {@link
 * MicrometerLockObserver} for what each one counts, and {@code locksmith.metrics.named-waiters} for
 * the bound on per-name waiter gauges.
 */
@AutoConfiguration(
    before = LocksmithAutoConfiguration.class,
    afterName = {
      // Spring Boot 4, then 3.5: a name that is not on the class path is ignored.
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@EnableConfigurationProperties(LocksmithProperties.class)
public class LocksmithMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  MicrometerLockObserver locksmithMeters(MeterRegistry registry, LocksmithProperties properties) {
    return new MicrometerLockObserver(registry, properties.getMetrics().getNamedWaiters());
  }
}
