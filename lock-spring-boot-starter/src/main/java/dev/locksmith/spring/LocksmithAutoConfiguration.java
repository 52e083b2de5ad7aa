package dev.locksmith.spring;

import dev.locksmith.LockClient;
import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import dev.locksmith.UnsupportedLockUriException;
import dev.locksmith.jdbc.JdbcLockStore;
import dev.locksmith.jdbc.JdbcLockStoreOptions;
import dev.locksmith.spring.internal.LockedMethodAdvisor;
import dev.locksmith.spring.internal.ObserverFanOut;
import dev.locksmith.spring.internal.SpringDataRedisUri;
import io.micrometer.observation.ObservationRegistry;
import javax.sql.DataSource;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Auto-configures Locksmith: one {@link LockClient} and the {@link Locked} advice.
 *
 * <p>The client is built only when the application says where locks live, and only if it has not
 * defined its own {@code LockClient} bean:
 *
 * <ol>
 *   <li>{@code locksmith.uri} names a store ({@code redis://…}, {@code jdbc:…}, {@code
 *       zookeeper://…} with its module on the class path…); {@code locksmith.uri=spring-data-redis}
 *       uses the Redis server that Spring Data Redis is configured for;
 *   <li>else, if the application has a single {@link DataSource}, a lock table in that database.
 * </ol>
 *
 * A {@code RedisConnectionFactory} alone never turns into a lock store: that takes {@code
 * locksmith.uri}. The client takes its options from {@link LocksmithProperties}, tells every {@link
 * LockObserver} bean (the Micrometer meters among them) what it does, and is closed at shutdown,
 * which releases the leases it still holds. A URI that is malformed or names no known store fails
 * startup with an {@link IllegalArgumentException} naming {@code locksmith.uri}; a store that
 * cannot be reached at startup fails it with {@link dev.locksmith.LockStoreException}.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
    })
@EnableConfigurationProperties(LocksmithProperties.class)
@Import(LocksmithAutoConfiguration.AutoProxyRegistrar.class)
public class LocksmithAutoConfiguration {

  /** The advice of {@link Locked} methods; infrastructure, created before ordinary beans. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LockedMethodAdvisor locksmithLockedMethodAdvisor(
      ObjectProvider<LockClient> clients,
      ObjectProvider<LocksmithProperties> properties,
      ObjectProvider<ObservationRegistry> observations,
      Environment environment,
      BeanFactory beanFactory) {
    return new LockedMethodAdvisor(clients, properties, observations, environment, beanFactory);
  }

  /** The client, when a store is configured and the application has none of its own. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(LockClient.class)
  @Conditional(StoreConfigured.class)
  static class LockClientConfiguration {

    @Bean(destroyMethod = "close")
    LockClient lockClient(
        LocksmithProperties properties,
        ObjectProvider<DataSource> dataSources,
        ObjectProvider<RedisConnectionDetails> redis,
        ObjectProvider<LockObserver> observers) {
      LockOptions options =
          properties.toOptions().toBuilder()
              .observer(ObserverFanOut.of(observers.orderedStream().toList()))
              .build();
      String uri = properties.getUri();
      if (uri == null) {
        JdbcLockStoreOptions.Builder table = JdbcLockStoreOptions.builder();
        if (properties.getKeyPrefix() != null) {
          table.keyPrefix(properties.getKeyPrefix());
        }
        return LockClient.of(new JdbcLockStore(dataSources.getObject(), table.build()), options);
      }
      if (uri.equals(LocksmithProperties.SPRING_DATA_REDIS)) {
        RedisConnectionDetails details = redis.getIfAvailable();
        if (details == null) {
          throw new IllegalArgumentException(
              "locksmith.uri=spring-data-redis, but Spring Data Redis is not configured: add"
                  + " spring-boot-starter-data-redis and spring.data.redis.*, or give"
                  + " locksmith.uri=redis://host:port");
        }
        uri = SpringDataRedisUri.of(details);
      }
      try {
        return LockClient.open(uri, options);
      } catch (IllegalArgumentException | UnsupportedLockUriException e) {
        throw new IllegalArgumentException(
            "locksmith.uri '" + SpringDataRedisUri.redact(uri) + "': " + e.getMessage(), e);
      }
    }
  }

  /** A store is configured: {@code locksmith.uri}, or a single {@link DataSource}. */
  static class StoreConfigured extends AnyNestedCondition {

    StoreConfigured() {
      super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnProperty(prefix = "locksmith", name = "uri")
    static class UriSet {}

    @ConditionalOnSingleCandidate(DataSource.class)
    static class SingleDataSource {}
  }

  /**
   * Makes sure an auto-proxy creator exists for the advisor (Spring Boot's AOP auto-configuration
   * registers one unless {@code spring.aop.auto=false}), as {@code @EnableTransactionManagement}
   * does.
   */
  static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
    @Override
    public void registerBeanDefinitions(
        AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
      AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    }
  }
}
