package dev.locksmith.examples.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example started twice in one JVM on one real redis-server, as two instances of the service:
 * the report runs on one instance per period, an order ships on one instance at a time, and both
 * show Locksmith's health and meters over HTTP.
 */
class TwoInstancesTest {

  private static ServerProcess redis;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void startTwoInstances() {
    redis = RedisServer.startVolatile();
    for (int i = 0; i < 2; i++) {
      // Command-line arguments, as an operator would start an instance: they override
      // application.properties (SpringApplicationBuilder.properties would not).
      instances.add(
          new SpringApplicationBuilder(SchedulerApplication.class)
              .run(
                  "--server.port=0",
                  "--locksmith.uri=" + RedisServer.uri(redis),
                  "--jobs.report.cron=*/2 * * * * *",
                  "--jobs.report.hold-at-least=1500ms",
                  "--jobs.cleanup.delay=PT0.5S",
                  "--orders.ship-time=3s"));
    }
  }

  @AfterAll
  static void stop() {
    instances.forEach(ConfigurableApplicationContext::close);
    redis.close();
  }

  private static List<ReportJobs.ReportRun> allReports() {
    return instances.stream()
        .flatMap(c -> c.getBean(ReportJobs.class).reports().stream())
        .sorted(Comparator.comparingLong(ReportJobs.ReportRun::nanoTime))
        .toList();
  }

  private String url(int instance, String path) {
    // The port the server took, as Boot publishes it on both lines (the web server's own types
    // moved packages in Boot 4).
    String port = instances.get(instance).getEnvironment().getProperty("local.server.port");
    return "http://127.0.0.1:" + port + path;
  }

  private HttpResponse<String> get(int instance, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url(instance, path))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private CompletableFuture<HttpResponse<String>> post(int instance, String path) {
    return http.sendAsync(
        HttpRequest.newBuilder(URI.create(url(instance, path)))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @DisplayName(
      "both instances schedule the report; it runs once per 2 s period, with rising tokens")
  void reportRunsOncePerPeriod() {
    await().atMost(Duration.ofSeconds(30)).until(() -> allReports().size() >= 4);
    List<ReportJobs.ReportRun> runs = allReports();
    for (int i = 1; i < runs.size(); i++) {
      assertThat(Duration.ofNanos(runs.get(i).nanoTime() - runs.get(i - 1).nanoTime()))
          .as("one run per period, across both instances")
          .isGreaterThanOrEqualTo(Duration.ofMillis(1400));
      assertThat(runs.get(i).fencingToken()).isGreaterThan(runs.get(i - 1).fencingToken());
    }
  }

  @Test
  @DisplayName("an order ships on one instance; the other answers 409 while it does")
  void orderShipsOnce() throws Exception {
    CompletableFuture<HttpResponse<String>> first = post(0, "/orders/42/ship");
    // The second request starts once the first holds the lock (it shows in the store).
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> RedisServer.cli(redis, "--scan", "--pattern", "*order:42*").contains("order:42"));
    HttpResponse<String> second = post(1, "/orders/42/ship").get();
    assertThat(second.statusCode()).isEqualTo(409);
    assertThat(second.body()).contains("order:42");
    assertThat(first.get().statusCode()).isEqualTo(200);
    assertThat(first.get().body()).contains("\"orderId\":42");
  }

  @Test
  @DisplayName("/actuator/health/locksmith is UP and /actuator/metrics lists Locksmith's meters")
  void healthAndMetrics() throws Exception {
    await().atMost(Duration.ofSeconds(30)).until(() -> !allReports().isEmpty());
    HttpResponse<String> health = get(0, "/actuator/health/locksmith");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"UP\"").contains("redis://127.0.0.1:");
    HttpResponse<String> names = get(0, "/actuator/metrics");
    assertThat(names.body())
        .contains("\"locksmith.acquire\"", "\"locksmith.held\"", "\"locksmith.lost\"");
    HttpResponse<String> acquire =
        get(1, "/actuator/metrics/locksmith.acquire?tag=outcome:acquired");
    assertThat(acquire.statusCode()).isEqualTo(200);
    assertThat(acquire.body()).contains("\"statistic\":\"COUNT\"");
  }
}
