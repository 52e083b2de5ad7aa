package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.jdbc.JdbcLockStore;
import dev.locksmith.spi.LockKey;
import dev.locksmith.tck.fixture.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Which store the starter picks, how {@code locksmith.*} binds, and what fails startup: real
 * application contexts (Spring Boot's {@link ApplicationContextRunner}) on real stores.
 */
class StarterConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class,
                  LocksmithAutoConfiguration.class,
                  LockTemplateAutoConfiguration.class));

  private static String message(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  @Test
  @DisplayName("locksmith.* binds into the client's options, and the key prefix reaches Redis")
  void propertiesBind() {
    runner
        .withPropertyValues(
            "locksmith.uri=" + SharedRedis.uri(),
            "locksmith.lease-time=10s",
            "locksmith.auto-renew=false",
            "locksmith.owner=billing",
            "locksmith.key-prefix=billing-locks:",
            "locksmith.backoff.min=2ms",
            "locksmith.backoff.max=40ms")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
              LockOptions options = context.getBean(LockClient.class).options();
              assertThat(options.leaseTime()).isEqualTo(Duration.ofSeconds(10));
              assertThat(options.autoRenew()).isFalse();
              assertThat(options.owner()).contains("billing");
              assertThat(options.backoffMin()).isEqualTo(Duration.ofMillis(2));
              assertThat(options.backoffMax()).isEqualTo(Duration.ofMillis(40));
              try (Lease lease =
                  context.getBean(LockClient.class).lock("prefixed").tryAcquire().orElseThrow()) {
                assertThat(
                        RedisServer.cli(
                            SharedRedis.server(), "--scan", "--pattern", "billing-locks:*"))
                    .contains("prefixed");
              }
              assertThat(context).hasSingleBean(LockTemplate.class);
            });
  }

  @ParameterizedTest(name = "{0}={1} fails startup naming {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "locksmith.lease-time | -5s | locksmith.lease-time",
        "locksmith.lease-time | soon | locksmith.lease-time",
        "locksmith.lease-time | 8d | locksmith.lease-time",
        "locksmith.on-lost | KILL | locksmith.on-lost",
        "locksmith.startup | sometimes | locksmith.startup",
        "locksmith.lease-tme | 5s | locksmith.lease-tme",
        "locksmith.owner | ' ' | locksmith.owner",
        "locksmith.key-prefix | a-prefix-that-is-longer-than-sixty-four-bytes-is-refused-by-the-engine | locksmith.key-prefix",
        "locksmith.backoff.min | 0ms | locksmith.backoff.min",
        "locksmith.health.timeout | 0s | locksmith.health.timeout",
        "locksmith.uri | nosuch://host | locksmith.uri",
        "locksmith.uri | redis://127.0.0.1:6379?colour=blue | locksmith.uri",
      })
  @DisplayName("a bad property fails startup with a message that names it")
  void badPropertyFailsStartup(String property, String value, String named) {
    runner
        .withPropertyValues(
            property + "=" + value,
            property.equals("locksmith.uri") ? "locksmith.lease-time=30s" : "locksmith.uri=mem:x")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(message(context.getStartupFailure())).contains(named);
            });
  }

  @Test
  @DisplayName("backoff.min longer than backoff.max fails startup naming both")
  void contradictoryBackoff() {
    runner
        .withPropertyValues(
            "locksmith.uri=mem:x", "locksmith.backoff.min=100ms", "locksmith.backoff.max=10ms")
        .run(
            context ->
                assertThat(message(context.getStartupFailure()))
                    .contains("locksmith.backoff.min and locksmith.backoff.max"));
  }

  @Test
  @DisplayName("without locksmith.uri, the application's single DataSource gets the lock table")
  void dataSourceStore() {
    runner
        .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE))
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:mem:starter-ds;DB_CLOSE_DELAY=-1",
            "locksmith.key-prefix=app/")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
              try (Lease lease =
                  context.getBean(LockClient.class).lock("in-the-db").tryAcquire().orElseThrow()) {
                List<String> names =
                    new JdbcTemplate(context.getBean(DataSource.class))
                        .queryForList("SELECT name FROM locksmith_locks", String.class);
                // The JDBC store keeps the prefix and the name apart (LockKey.nameUnder).
                assertThat(names).contains("app/" + LockKey.PREFIX_SEPARATOR + "in-the-db");
              }
            });
  }

  @Test
  @DisplayName("locksmith.uri wins over the application's DataSource")
  void uriWinsOverDataSource() {
    runner
        .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE))
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:mem:starter-both;DB_CLOSE_DELAY=-1",
            "locksmith.uri=" + SharedRedis.uri(),
            "locksmith.key-prefix=uri-wins:")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
              try (Lease lease =
                  context.getBean(LockClient.class).lock("where").tryAcquire().orElseThrow()) {
                assertThat(
                        RedisServer.cli(SharedRedis.server(), "--scan", "--pattern", "uri-wins:*"))
                    .contains("where");
              }
            });
  }

  @Test
  @DisplayName("without lock-jdbc on the class path, a DataSource is not a store")
  void dataSourceWithoutLockJdbc() {
    runner
        .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE))
        .withClassLoader(new FilteredClassLoader(JdbcLockStore.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:mem:starter-no-jdbc;DB_CLOSE_DELAY=-1")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockClient.class));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "zookeeper://127.0.0.1:2181/locks | lock-zookeeper",
        "memcached://127.0.0.1:11211 | lock-memcached",
        "etcd://127.0.0.1:2379 | lock-etcd",
        "etcds://127.0.0.1:2379 | lock-etcd",
      })
  @DisplayName("a URI whose store module is missing fails startup saying which module to add")
  void missingStoreModule(String uri, String module) {
    runner
        .withPropertyValues("locksmith.uri=" + uri)
        .run(
            context ->
                assertThat(message(context.getStartupFailure()))
                    .contains("locksmith.uri '" + uri + "'")
                    .contains("add the dependency dev.locksmith:" + module));
  }

  @Test
  @DisplayName("no locksmith.uri and no DataSource: no client, and @Locked fails startup with how")
  void noStore() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockClient.class));
    runner
        .withBean(Work.class)
        .run(
            context ->
                assertThat(message(context.getStartupFailure()))
                    .contains("@Locked methods need a LockClient")
                    .contains("locksmith.uri"));
  }

  @Test
  @DisplayName(
      "Spring Data Redis alone is not a store; locksmith.uri=spring-data-redis uses its server")
  void springDataRedis() {
    ApplicationContextRunner withRedis =
        runner
            .withConfiguration(AutoConfigurations.of(BootLine.SPRING_DATA_REDIS))
            .withPropertyValues(
                "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + SharedRedis.server().port());
    withRedis.run(context -> assertThat(context).doesNotHaveBean(LockClient.class));
    withRedis
        .withPropertyValues("locksmith.uri=spring-data-redis", "locksmith.key-prefix=sdr:")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              try (Lease lease =
                  context.getBean(LockClient.class).lock("via-sdr").tryAcquire().orElseThrow()) {
                assertThat(RedisServer.cli(SharedRedis.server(), "--scan", "--pattern", "sdr:*"))
                    .contains("via-sdr");
              }
            });
    runner
        .withPropertyValues("locksmith.uri=spring-data-redis")
        .run(
            context ->
                assertThat(message(context.getStartupFailure()))
                    .contains("locksmith.uri=spring-data-redis, but Spring Data Redis is not"));
  }

  @Test
  @DisplayName("an application's own LockClient bean wins; the template and @Locked use it")
  void ownClientWins() {
    runner
        .withPropertyValues("locksmith.uri=nosuch://ignored")
        .withBean(
            "myClient",
            LockClient.class,
            () -> LockClient.open(SharedRedis.uri() + "?keyPrefix=mine:"),
            d -> d.setDestroyMethodName("close"))
        .withBean(Work.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
              assertThat(context.getBean(Work.class).contextName()).isEqualTo("context");
              assertThat(context.getBean(LockTemplate.class).run("t", Duration.ZERO, () -> {}))
                  .isTrue();
            });
  }

  @Test
  @DisplayName("closing the application releases the leases its client still holds")
  void shutdownReleases() {
    try (LockClient other = LockClient.open(SharedRedis.uri())) {
      runner
          .withPropertyValues("locksmith.uri=" + SharedRedis.uri())
          .run(
              context -> {
                context
                    .getBean(LockClient.class)
                    .lock("held-at-shutdown")
                    .tryAcquire()
                    .orElseThrow();
                assertThat(other.lock("held-at-shutdown").tryAcquire()).isEmpty();
              });
      // The 30 s lease would still run: only the close can have freed it.
      assertThat(other.lock("held-at-shutdown").tryAcquire()).isPresent();
    }
  }

  @Test
  @DisplayName("the configuration metadata lists every locksmith property with a description")
  void metadata() throws Exception {
    String json =
        new ClassPathResource("META-INF/spring-configuration-metadata.json")
            .getContentAsString(StandardCharsets.UTF_8);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> properties =
        (List<Map<String, Object>>)
            JsonParserFactory.getJsonParser().parseMap(json).get("properties");
    List<String> names = new ArrayList<>();
    for (Map<String, Object> p : properties) {
      names.add((String) p.get("name"));
      assertThat((String) p.get("description")).as("description of %s", p.get("name")).isNotBlank();
    }
    assertThat(names)
        .containsExactlyInAnyOrder(
            "locksmith.uri",
            "locksmith.lease-time",
            "locksmith.auto-renew",
            "locksmith.owner",
            "locksmith.key-prefix",
            "locksmith.backoff.min",
            "locksmith.backoff.max",
            "locksmith.on-lost",
            "locksmith.startup",
            "locksmith.health.probe-lock",
            "locksmith.health.timeout",
            "locksmith.health.renewal-lag-threshold",
            "locksmith.health.renewal-lag-window",
            "locksmith.metrics.named-waiters",
            "locksmith.observations.enabled");
    Map<String, Object> startup =
        properties.stream()
            .filter(p -> "locksmith.startup".equals(p.get("name")))
            .findFirst()
            .get();
    assertThat(startup).containsEntry("defaultValue", "lenient");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> hints =
        (List<Map<String, Object>>) JsonParserFactory.getJsonParser().parseMap(json).get("hints");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> values =
        (List<Map<String, Object>>)
            hints.stream()
                .filter(h -> "locksmith.startup".equals(h.get("name")))
                .findFirst()
                .orElseThrow()
                .get("values");
    assertThat(values).extracting(v -> v.get("value")).containsExactly("lenient", "strict");
    assertThat(values).allSatisfy(v -> assertThat((String) v.get("description")).isNotBlank());
  }

  // Bad @Locked declarations: each fails startup naming the method and the problem.

  static class BadTemplate {
    @Locked(name = "order:#{#id")
    public void m(long id) {}
  }

  static class UnknownVariable {
    @Locked(name = "order:#{#orderId}")
    public void m(long id) {}
  }

  static class BlankName {
    @Locked(name = " ")
    public void m() {}
  }

  static class SkipPrimitive {
    @Locked(name = "n")
    public int m() {
      return 1;
    }
  }

  static class WaitWithBound {
    @Locked(name = "n", waitFor = "5s", onBusy = OnBusy.WAIT)
    public void m() {}
  }

  static class BadDuration {
    @Locked(name = "n", holdAtLeast = "a while")
    public void m() {}
  }

  static class FinalMethod {
    @Locked(name = "n")
    public final void m() {}
  }

  static class AsyncMethod {
    @Locked(name = "n")
    public CompletableFuture<String> m() {
      return CompletableFuture.completedFuture("x");
    }
  }

  static class MissingPlaceholder {
    @Locked(name = "${no.such.property}")
    public void m() {}
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "BadTemplate | BadTemplate.m(long): name 'order:#{#id' is not a valid SpEL template",
        "UnknownVariable | uses #orderId, which is not a parameter of the method; its parameters are [id]",
        "BlankName | BlankName.m(): name must not be blank",
        "SkipPrimitive | onBusy = SKIP cannot skip a method that returns int",
        "WaitWithBound | onBusy = WAIT waits as long as it takes",
        "BadDuration | holdAtLeast \"a while\" is not a duration",
        "FinalMethod | FinalMethod.m() would have no effect",
        "AsyncMethod | it returns CompletableFuture",
        "MissingPlaceholder | no.such.property",
      })
  @DisplayName("a bad @Locked fails startup naming the method and the attribute")
  void badLockedFailsStartup(String bean, String expected) throws Exception {
    Class<?> type = Class.forName(StarterConfigurationTest.class.getName() + "$" + bean);
    runner
        .withPropertyValues("locksmith.uri=" + SharedRedis.uri())
        .withBean(type)
        .run(context -> assertThat(message(context.getStartupFailure())).contains(expected));
  }
}
