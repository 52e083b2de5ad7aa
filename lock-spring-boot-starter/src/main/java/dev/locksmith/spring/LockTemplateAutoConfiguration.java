package dev.locksmith.spring;

import dev.locksmith.LockClient;
import dev.locksmith.spring.internal.StoreOutage;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures a {@link LockTemplate} on the application's {@link LockClient}, when there is
 * one, with {@code locksmith.on-lost}, the application's {@code ObservationRegistry} and the
 * store's outage log.
 */
@AutoConfiguration(after = LocksmithAutoConfiguration.class)
@ConditionalOnBean(LockClient.class)
public class LockTemplateAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  LockTemplate lockTemplate(
      LockClient client,
      LocksmithProperties properties,
      ObjectProvider<ObservationRegistry> observations,
      ObjectProvider<StoreOutage> outage) {
    return new LockTemplate(
        client,
        properties.getOnLost(),
        observations.getIfAvailable(() -> ObservationRegistry.NOOP),
        outage.getIfAvailable(() -> new StoreOutage("the lock store")));
  }
}
