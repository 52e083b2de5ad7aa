package dev.locksmith.spring;

import dev.locksmith.LockClient;
import dev.locksmith.spring.internal.LockStoreHealthIndicator;
import dev.locksmith.spring.internal.LockStoreProbe;
import dev.locksmith.spring.internal.RenewalLagWindow;
import dev.locksmith.spring.internal.StoreOutage;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures the {@code locksmith} health indicator when Actuator is present and there is a
 * {@link LockClient}: UP when the store answers a read of {@code locksmith.health.probe-lock}
 * within {@code locksmith.health.timeout}, DOWN with the store and the reason otherwise (and since
 * when, if an outage is going on). Its answers count for the store's outage log like every other
 * call's. It is DOWN too while renewals lag: when, within {@code
 * locksmith.health.renewal-lag-window}, a renewal was sent later than {@code
 * locksmith.health.renewal-lag-threshold} of its lease after it was due (starved threads, long GC
 * pauses or a slow store, which lose locks silently at the next pause). Turn it off with {@code
 * management.health.locksmith.enabled=false}.
 *
 * <p>This is the Spring Boot 3.5 class (Boot 3.5 keeps its health types in the Actuator); {@code
 * lock-spring-boot-starter} has the same class for Boot 4. Both report what {@link LockStoreProbe}
 * finds.
 */
@AutoConfiguration(after = LocksmithAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("locksmith")
public class LocksmithHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RenewalLagWindow locksmithRenewalLag(LocksmithProperties properties) {
    return new RenewalLagWindow(properties.getHealth().getRenewalLagWindow());
  }

  @Bean
  @ConditionalOnMissingBean(name = "locksmithHealthIndicator")
  LockStoreHealthIndicator locksmithHealthIndicator(
      LockClient client,
      LocksmithProperties properties,
      ObjectProvider<StoreOutage> outage,
      RenewalLagWindow renewalLag) {
    return new LockStoreHealthIndicator(
        LockStoreProbe.of(client, properties, outage.getIfAvailable(), renewalLag));
  }
}
