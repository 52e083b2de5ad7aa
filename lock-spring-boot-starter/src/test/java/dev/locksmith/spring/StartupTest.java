package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Starting a Boot application whose lock store is down (a free port with nothing listening, where a
 * real redis-server or H2 server starts later), with {@code locksmith.startup} lenient (the
 * default) and strict; and starting one with a URI that no wait can fix, or with {@code @Locked}
 * methods but no store at all. What the log shows is what an operator reads: Spring Boot's console
 * output at its default levels.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupTest {

  private static final String PASSWORD = "s3cret-startup";

  private ServerProcess redis;
  private Server h2;
  private ConfigurableApplicationContext app;

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    if (redis != null) {
      redis.close();
    }
    if (h2 != null) {
      h2.stop();
    }
  }

  /**
   * A redis-server (with a password) that was started and killed: its port has nothing listening
   * until {@code redis.restart()}. Returns its URI with the password.
   */
  private String downRedis() {
    redis = RedisServer.startVolatile("--requirepass", PASSWORD);
    redis.kill();
    return "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port();
  }

  // Spring Data Redis is on the test class path but not used here; its client resources, shut down
  // with a context that failed to start, sometimes log a Netty ERROR of their own.
  // Boot 4's names, then 3.5's: Boot ignores an exclusion that is not on the class path.
  private static final String NO_SPRING_DATA_REDIS =
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration,"
          + "org.springframework.boot.data.redis.autoconfigure.DataRedisRepositoriesAutoConfiguration,"
          + "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration,"
          + "org.springframework.boot.autoconfigure.data.redis.RedisRepositoriesAutoConfiguration";

  /** {@link Work}, and a {@code @Scheduled @Locked} job ticking every 200 ms. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @EnableScheduling
  @Import({Work.class, StoreOutageTest.Ticker.class})
  static class App {}

  private static SpringApplicationBuilder app(Map<String, Object> properties) {
    Map<String, Object> all = new HashMap<>();
    all.put("spring.autoconfigure.exclude", NO_SPRING_DATA_REDIS);
    all.put("test.tick", "200ms");
    all.putAll(properties);
    return new SpringApplicationBuilder(App.class).properties(all);
  }

  /** The log since {@code from}, without Lettuce's own noise (see {@link BootLog}). */
  private static BootLog log(CapturedOutput output, int from) {
    return new BootLog(output.getOut().substring(from))
        .without(BootLog.LETTUCE_HANDSHAKE_AFTER_SHUTDOWN);
  }

  @Test
  @DisplayName(
      "lenient (default): the application starts, health is DOWN, @Locked fails fast; then it works")
  void lenient(CapturedOutput output) throws Exception {
    String uri = downRedis();
    String store = "redis://127.0.0.1:" + redis.port();
    int from = output.getOut().length();
    app = app(Map.of("locksmith.uri", uri + "?timeout=500ms")).run();
    Instant started = Instant.now();

    HealthAnswer down = BootLine.health(app);
    assertThat(down.status()).isEqualTo("DOWN");
    assertThat(down.details()).containsEntry("store", store).containsKey("since");
    assertThat((String) down.details().get("reason"))
        .contains("has not answered since the application started");

    // Calls fail at once, saying why, without trying the store: the client is not connected.
    Work work = app.getBean(Work.class);
    assertThatThrownBy(work::contextName)
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("lock store " + store + " has not answered since the application")
        .hasMessageContaining("Connection refused")
        .hasMessageContaining("Locksmith keeps trying to connect");
    assertThatThrownBy(() -> app.getBean(LockTemplate.class).run("t", Duration.ZERO, () -> {}))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("has not answered since the application started");
    assertThat(work.runs()).hasValue(0);

    // The client meanwhile: locks can be named (and are checked), what needs the store fails.
    LockClient client = app.getBean(LockClient.class);
    DistributedLock early = client.lock("early").withLeaseTime(Duration.ofSeconds(3));
    assertThat(early.name()).isEqualTo("early");
    assertThatThrownBy(early::tryAcquire)
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("has not answered since the application started");
    assertThatThrownBy(() -> client.lock(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name must not be blank");
    assertThatThrownBy(() -> early.withLeaseTime(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime must be positive");
    assertThatThrownBy(() -> client.readWriteLock("rw")).isInstanceOf(LockStoreException.class);
    assertThatThrownBy(client::capabilities).isInstanceOf(LockStoreException.class);

    // The store stays down while the client tries again (at 0.5, 1.5 and 3.5 s): no more lines.
    StoreOutageTest.Ticker ticker = app.getBean(StoreOutageTest.Ticker.class);
    long downFor =
        Duration.ofSeconds(4).toMillis() - Duration.between(started, Instant.now()).toMillis();
    if (downFor > 0) {
      Thread.sleep(downFor);
    }
    assertThat(ticker.runs()).as("the scheduled job is skipped while the store is down").isZero();
    assertThat(BootLine.health(app).status()).isEqualTo("DOWN");
    BootLog whileDown = log(output, from);
    assertThat(whileDown.at("ERROR")).as("%s", whileDown).isEmpty();
    assertThat(whileDown.stackTraces()).as("%s", whileDown).isEmpty();
    assertThat(whileDown.at("WARN")).as("%s", whileDown).hasSize(1);
    assertThat(whileDown.at("WARN").get(0))
        .contains("Lock store " + store + " cannot be reached at startup")
        .contains("Connection refused")
        .contains("the application starts without it (locksmith.startup=lenient)")
        .doesNotContain(PASSWORD);

    redis.restart(); // the same port, the same password
    await().atMost(Duration.ofSeconds(20)).until(() -> BootLine.health(app).status().equals("UP"));
    assertThat(work.contextName()).isEqualTo("context");
    assertThat(client.lock("after").tryAcquire()).isPresent();
    assertThat(client.capabilities()).isNotEmpty();
    Instant asked = Instant.now();
    try (Lease lease = early.tryAcquire().orElseThrow()) {
      // The lease time given before the store answered is the one the store got.
      assertThat(Duration.between(asked, lease.expiresAt()))
          .isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> ticker.runs() >= 2);

    BootLog log = log(output, from);
    assertThat(log.at("ERROR")).as("%s", log).isEmpty();
    assertThat(log.stackTraces()).as("%s", log).isEmpty();
    assertThat(log.at("WARN")).as("%s", log).hasSize(1);
    List<String> connected =
        log.at("INFO").stream().filter(l -> l.contains("Lock store " + store)).toList();
    assertThat(connected).as("%s", log).hasSize(1);
    Matcher line =
        Pattern.compile("answers, \\S+ s after startup; @Locked calls work now \\((\\d+) failed")
            .matcher(connected.get(0));
    assertThat(line.find()).as(connected.get(0)).isTrue();
    assertThat(Integer.parseInt(line.group(1)))
        .as("three attempts to connect at least, and the calls")
        .isGreaterThanOrEqualTo(3 + 3);
  }

  @Test
  @DisplayName("lenient on a DataSource: the lock table's database comes up after the application")
  void lenientOnDataSource(CapturedOutput output) throws SQLException {
    int port = ServerProcess.freePort();
    int from = output.getOut().length();
    app =
        app(Map.of(
                "spring.datasource.url",
                "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:startup-lenient",
                "spring.datasource.hikari.connection-timeout",
                "1000"))
            .run();
    assertThat(BootLine.health(app).status()).isEqualTo("DOWN");
    Work work = app.getBean(Work.class);
    assertThatThrownBy(work::contextName)
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining(
            "lock store jdbc (the application's DataSource) has not answered since the application");

    h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
    await().atMost(Duration.ofSeconds(20)).until(() -> BootLine.health(app).status().equals("UP"));
    assertThat(work.contextName()).isEqualTo("context");

    BootLog log = log(output, from);
    assertThat(log.at("ERROR")).as("%s", log).isEmpty();
    assertThat(log.stackTraces()).as("%s", log).isEmpty();
    assertThat(log.at("WARN").stream().filter(l -> l.contains("Lock store")))
        .as("%s", log)
        .singleElement()
        .asString()
        .contains("Lock store jdbc (the application's DataSource) cannot be reached at startup");
    assertThat(log.at("INFO").stream().filter(l -> l.contains("Lock store")))
        .as("%s", log)
        .singleElement()
        .asString()
        .contains("@Locked calls work now");
  }

  @Test
  @DisplayName("strict: startup fails with one line that names the store and the cause")
  void strict(CapturedOutput output) {
    String uri = downRedis();
    String store = "redis://127.0.0.1:" + redis.port();
    int from = output.getOut().length();
    assertThatThrownBy(
            () ->
                app(Map.of("locksmith.uri", uri + "?timeout=500ms", "locksmith.startup", "strict"))
                    .run())
        .hasStackTraceContaining("locksmith.startup=strict");
    BootLog log = log(output, from);
    assertThat(log.stackTraces()).as("no stack trace:\n%s", log).isEmpty();
    assertThat(log.at("ERROR")).as("%s", log).hasSize(1);
    assertThat(log.at("ERROR").get(0))
        .contains("Application run failed: locksmith.uri '" + store + "': the lock store cannot be")
        .contains("Connection refused")
        .contains("locksmith.startup=strict")
        .doesNotContain(PASSWORD);
  }

  @Test
  @DisplayName("a URI that no wait can fix fails startup in one line, lenient or not")
  void malformedUriIsNotLenient(CapturedOutput output) {
    int from = output.getOut().length();
    assertThatThrownBy(
            () -> app(Map.of("locksmith.uri", "redis://127.0.0.1:6379?timeout=soon")).run())
        .hasStackTraceContaining("locksmith.uri");
    BootLog log = log(output, from);
    assertThat(log.stackTraces()).as("no stack trace:\n%s", log).isEmpty();
    assertThat(log.at("ERROR"))
        .as("%s", log)
        .singleElement()
        .asString()
        .contains("Application run failed: locksmith.uri 'redis://127.0.0.1:6379': ")
        .contains("timeout");
  }

  @Test
  @DisplayName(
      "@Locked without a store: startup fails with one line that says how to configure one")
  void noStore(CapturedOutput output) {
    int from = output.getOut().length();
    assertThatThrownBy(
            () ->
                app(Map.of(
                        "spring.autoconfigure.exclude",
                        NO_SPRING_DATA_REDIS
                            + ",org.springframework.boot.jdbc.autoconfigure"
                            + ".DataSourceAutoConfiguration"
                            + ",org.springframework.boot.autoconfigure.jdbc"
                            + ".DataSourceAutoConfiguration"))
                    .run())
        .hasStackTraceContaining("@Locked methods need a LockClient");
    BootLog log = log(output, from);
    assertThat(log.stackTraces()).as("no stack trace:\n%s", log).isEmpty();
    assertThat(log.at("ERROR")).as("%s", log).hasSize(1);
    assertThat(log.at("ERROR").get(0))
        .contains("Application run failed: @Locked methods need a LockClient, and there is none:")
        .contains("set locksmith.uri");
    assertThat(log.at("WARN"))
        .as("Spring's own line, one line too")
        .allSatisfy(l -> assertThat(l).contains("cancelling refresh attempt"));
  }
}
