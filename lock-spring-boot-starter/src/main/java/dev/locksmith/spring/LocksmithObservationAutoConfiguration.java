package dev.locksmith.spring;

import dev.locksmith.spring.internal.ObservationLockObserver;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures Locksmith's observations when the application has an {@link ObservationRegistry}
 * (Spring Boot's Actuator makes one): every acquire (with its wait), renewal, release and loss is a
 * Micrometer observation, so that with Micrometer Tracing and a bridge (OpenTelemetry, Brave) on
 * the class path each shows as a span of the request that took the lock. See {@link
 * ObservationLockObserver} for names and keys; turn it off with {@code
 * locksmith.observations.enabled=false}.
 */
@AutoConfiguration(
    before = LocksmithAutoConfiguration.class,
    afterName = {
      // Spring Boot 4, then 3.5: a name that is not on the class path is ignored.
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
    })
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(
    prefix = "locksmith.observations",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class LocksmithObservationAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ObservationLockObserver locksmithObservations(ObservationRegistry registry) {
    return new ObservationLockObserver(registry);
  }
}
