package dev.locksmith.spring;

import dev.locksmith.LockClient;
import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import dev.locksmith.UnsupportedLockUriException;
import dev.locksmith.spring.internal.BootVersionCheck;
import dev.locksmith.spring.internal.ClientStartup;
import dev.locksmith.spring.internal.JdbcStores;
import dev.locksmith.spring.internal.LockedMethodAdvisor;
import dev.locksmith.spring.internal.ObserverFanOut;
import dev.locksmith.spring.internal.SpringDataRedisServer;
import dev.locksmith.spring.internal.SpringDataRedisUri;
import dev.locksmith.spring.internal.StartupFailure;
import dev.locksmith.spring.internal.StoreModules;
import dev.locksmith.spring.internal.StoreOutage;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
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
 *   <li>else, if the application has a single {@link DataSource} and lock-jdbc is on the class
 *       path, a lock table in that database.
 * </ol>
 *
 * A {@code RedisConnectionFactory} alone never turns into a lock store: that takes {@code
 * locksmith.uri}. The client takes its options from {@link LocksmithProperties}, tells every {@link
 * LockObserver} bean (the Micrometer meters among them) what it does, and is closed at shutdown,
 * which releases the leases it still holds. A URI that is malformed or names no known store fails
 * startup with one line naming {@code locksmith.uri}. A store that cannot be reached at startup
 * does what {@code locksmith.startup} says ({@link StartupMode}): by default the application starts
 * without it and the client connects in the background.
 *
 * <p>Every user of the client (the {@code @Locked} advice, {@link LockTemplate}, the health
 * indicator) reports the store's answers and failures to one {@link StoreOutage}, which logs an
 * outage once when it starts and once when it ends.
 */
@AutoConfiguration(
    afterName = {
      // Spring Boot 4, then 3.5: a name that is not on the class path is ignored.
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
    })
@EnableConfigurationProperties(LocksmithProperties.class)
@Import({
  LocksmithAutoConfiguration.AutoProxyRegistrar.class,
  LocksmithAutoConfiguration.UriStoreConfiguration.class,
  LocksmithAutoConfiguration.DataSourceStoreConfiguration.class
})
public class LocksmithAutoConfiguration {

  /**
   * Checks that the application runs the Spring Boot line this starter is built for.
   *
   * @throws StartupFailure if it runs the other one, naming the starter to use
   */
  public LocksmithAutoConfiguration() {
    BootVersionCheck.verify(SpringBootVersion.getVersion());
  }

  /** The advice of {@link Locked} methods; infrastructure, created before ordinary beans. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LockedMethodAdvisor locksmithLockedMethodAdvisor(
      ObjectProvider<LockClient> clients,
      ObjectProvider<LocksmithProperties> properties,
      ObjectProvider<ObservationRegistry> observations,
      ObjectProvider<StoreOutage> outages,
      Environment environment,
      BeanFactory beanFactory) {
    return new LockedMethodAdvisor(
        clients, properties, observations, outages, environment, beanFactory);
  }

  /** Whether the store answers, as the client's users see it; logs outages once. */
  @Bean
  @ConditionalOnMissingBean
  StoreOutage locksmithStoreOutage(
      LocksmithProperties properties, ObjectProvider<DataSource> dataSources, BeanFactory beans) {
    String store;
    if (properties.getUri() == null) {
      store =
          dataSources.getIfUnique() != null
              ? "jdbc (the application's DataSource)"
              : "the application's LockClient";
    } else {
      try {
        store = SpringDataRedisUri.redact(storeUri(properties, beans));
      } catch (StartupFailure e) {
        store = properties.getUri(); // the client's bean reports it
      }
    }
    return new StoreOutage(store);
  }

  /**
   * {@code locksmith.uri}, with {@code spring-data-redis} replaced by Spring Data Redis's server.
   *
   * @throws StartupFailure if it says {@code spring-data-redis} but that is not configured
   */
  private static String storeUri(LocksmithProperties properties, BeanFactory beans) {
    String uri = Objects.requireNonNull(properties.getUri());
    if (!uri.equals(LocksmithProperties.SPRING_DATA_REDIS)) {
      return uri;
    }
    String server;
    try {
      server = SpringDataRedisServer.uri(beans);
    } catch (IllegalArgumentException e) {
      throw new StartupFailure(e.getMessage(), e);
    }
    if (server == null) {
      throw new StartupFailure(
          "locksmith.uri=spring-data-redis, but Spring Data Redis is not configured: add"
              + " spring-boot-starter-data-redis and spring.data.redis.*, or give"
              + " locksmith.uri=redis://host:port");
    }
    return server;
  }

  /** The client from {@code locksmith.uri}, unless the application has its own. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(LockClient.class)
  @ConditionalOnProperty(prefix = "locksmith", name = "uri")
  static class UriStoreConfiguration {

    @Bean(destroyMethod = "close")
    LockClient lockClient(
        LocksmithProperties properties,
        BeanFactory beans,
        ObjectProvider<LockObserver> observers,
        StoreOutage outage) {
      String uri = storeUri(properties, beans);
      String store = SpringDataRedisUri.redact(uri);
      LockOptions options = options(properties, observers);
      return ClientStartup.open(
          "locksmith.uri '" + store + "'",
          () -> {
            try {
              return LockClient.open(uri, options);
            } catch (IllegalArgumentException | UnsupportedLockUriException e) {
              throw new StartupFailure(
                  "locksmith.uri '" + store + "': " + e.getMessage() + StoreModules.hint(uri), e);
            }
          },
          properties.getStartup(),
          options,
          outage);
    }
  }

  /**
   * Without {@code locksmith.uri}: a lock table in the application's single {@link DataSource}, if
   * lock-jdbc is on the class path.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(LockClient.class)
  @ConditionalOnClass(name = "dev.locksmith.jdbc.JdbcLockStore")
  @Conditional(UriNotSet.class)
  @ConditionalOnSingleCandidate(DataSource.class)
  static class DataSourceStoreConfiguration {

    @Bean(destroyMethod = "close")
    LockClient lockClient(
        LocksmithProperties properties,
        DataSource dataSource,
        ObjectProvider<LockObserver> observers,
        StoreOutage outage) {
      LockOptions options = options(properties, observers);
      return ClientStartup.open(
          "the lock table in the application's DataSource",
          () -> JdbcStores.onDataSource(dataSource, properties.getKeyPrefix(), options),
          properties.getStartup(),
          options,
          outage);
    }
  }

  /** {@code locksmith.uri} is not set: then, and only then, the DataSource is the store. */
  static class UriNotSet extends NoneNestedConditions {
    UriNotSet() {
      super(ConfigurationPhase.PARSE_CONFIGURATION);
    }

    @ConditionalOnProperty(prefix = "locksmith", name = "uri")
    static class UriSet {}
  }

  private static LockOptions options(
      LocksmithProperties properties, ObjectProvider<LockObserver> observers) {
    return properties.toOptions().toBuilder()
        .observer(ObserverFanOut.of(observers.orderedStream().toList()))
        .build();
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
