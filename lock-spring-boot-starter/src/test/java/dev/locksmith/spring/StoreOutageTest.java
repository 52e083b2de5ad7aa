package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.LockStoreException;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A store outage in a Boot application's log: a {@code @Scheduled @Locked} job ticks every 200 ms
 * against a real redis-server that is paused (SIGSTOP) and resumed. The outage is two lines at the
 * default levels, one WARN when it starts and one INFO when it ends, however many ticks and calls
 * meet it; no ERROR, no stack trace; each failed call is one DEBUG line.
 *
 * <p>For a longer look: {@code -Dlocksmith.test.pause=30s} (default 4s), {@code
 * -Dlocksmith.test.tick=1s} (default 200ms) and {@code -Dlocksmith.test.log=FILE}, which saves what
 * the application wrote at the default levels from the pause to the end.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreOutageTest {

  private static final Duration PAUSE = duration(System.getProperty("locksmith.test.pause", "4s"));
  private static final String TICK = System.getProperty("locksmith.test.tick", "200ms");
  private static final int BURST = 16;

  private ServerProcess redis;
  private ConfigurableApplicationContext app;

  private static Duration duration(String text) {
    return Duration.parse("PT" + text.toUpperCase(Locale.ROOT));
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    if (redis != null) {
      redis.resume();
      redis.close();
    }
  }

  /** A job that ticks, and a locked method called directly. */
  public static class Ticker {
    private final AtomicInteger runs = new AtomicInteger();

    /** How many times the job ran (a method: the bean is a proxy). */
    public int runs() {
      return runs.get();
    }

    @Scheduled(fixedDelayString = "${test.tick}")
    @Locked(name = "outage-tick")
    public void tick() {
      runs.incrementAndGet();
    }

    @Locked(name = "outage-direct:#{#i}")
    public void direct(int i) {}
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @EnableScheduling
  @Import(Ticker.class)
  static class App {}

  @Test
  @DisplayName(
      "a paused store is one WARN when the outage starts and one INFO when it ends, no stack trace")
  void outageIsTwoLines(CapturedOutput output) throws Exception {
    redis = RedisServer.startVolatile();
    String store = RedisServer.uri(redis);
    app =
        new SpringApplicationBuilder(App.class)
            .properties(
                Map.of(
                    "locksmith.uri", store + "?timeout=300ms",
                    "locksmith.lease-time", "2s",
                    "locksmith.health.timeout", "2s",
                    "test.tick", TICK,
                    // Each failed call's line (DEBUG) is part of what is checked.
                    "logging.level.dev.locksmith.spring.internal.StoreOutage", "DEBUG"))
            .run();
    Ticker ticker = app.getBean(Ticker.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> ticker.runs() >= 3);
    int from = output.getOut().length();

    redis.pause();
    long pausedAt = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> BootLine.health(app).status().equals("DOWN"));
    Map<String, Object> whilePaused = BootLine.health(app).details();
    int runsWhilePaused = ticker.runs();

    // A burst: many threads meet the outage at once; each caller gets the failure, the log one
    // line.
    ExecutorService callers = Executors.newFixedThreadPool(BURST);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Throwable>> calls = new ArrayList<>();
      for (int i = 0; i < BURST; i++) {
        int n = i;
        calls.add(
            callers.submit(
                () -> {
                  go.await();
                  try {
                    ticker.direct(n);
                    return null;
                  } catch (Throwable e) {
                    return e;
                  }
                }));
      }
      go.countDown();
      for (Future<Throwable> call : calls) {
        assertThat(call.get(30, TimeUnit.SECONDS)).isInstanceOf(LockStoreException.class);
      }
    } finally {
      callers.shutdownNow();
    }

    // The outage itself: the store stays paused for PAUSE, ticks keep meeting it.
    long left = PAUSE.toNanos() - (System.nanoTime() - pausedAt);
    if (left > 0) {
      Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left));
    }
    assertThat(ticker.runs()).as("no run while the store is paused").isEqualTo(runsWhilePaused);
    assertThat(BootLine.health(app).status()).as("DOWN all along").isEqualTo("DOWN");
    redis.resume();
    await().atMost(Duration.ofSeconds(30)).until(() -> ticker.runs() >= runsWhilePaused + 3);
    assertThat(BootLine.health(app).status()).isEqualTo("UP");

    BootLog log = new BootLog(output.getOut().substring(from) + output.getErr());
    String saveTo = System.getProperty("locksmith.test.log");
    if (saveTo != null) {
      save(Path.of(saveTo), log);
    }
    assertThat(log.at("ERROR")).as("no ERROR:\n%s", log).isEmpty();
    assertThat(log.stackTraces()).as("no stack trace:\n%s", log).isEmpty();
    assertThat(log.at("WARN")).as("one WARN:\n%s", log).hasSize(1);
    assertThat(log.at("WARN").get(0))
        .contains("Lock store " + store + " is not answering: ")
        .contains("did not answer in time")
        .contains("scheduled @Locked jobs are skipped until it answers");
    List<String> ended =
        log.at("INFO").stream().filter(l -> l.contains("Lock store " + store)).toList();
    assertThat(ended).as("one line when it ends:\n%s", log).hasSize(1);
    Matcher failed =
        Pattern.compile("answers again after (\\S+) s \\((\\d+) failed").matcher(ended.get(0));
    assertThat(failed.find()).as(ended.get(0)).isTrue();
    assertThat(Double.parseDouble(failed.group(1)))
        .as("the outage lasted about the pause")
        .isGreaterThanOrEqualTo(PAUSE.toMillis() / 1000.0 - 1);
    int failedCalls = Integer.parseInt(failed.group(2));
    assertThat(failedCalls)
        .as("the ticks, the burst and the health checks all failed meanwhile")
        .isGreaterThan(BURST + 2);

    // At DEBUG: the first failure with its stack trace, then one line per failed call.
    List<BootLog.Event> first =
        log.events(e -> e.level().equals("DEBUG") && e.line().contains("first failure"));
    assertThat(first).as("%s", log).hasSize(1);
    assertThat(first.get(0).stackTrace()).isNotEmpty();
    List<BootLog.Event> each =
        log.events(
            e ->
                e.level().equals("DEBUG")
                    && e.line().contains("failed; lock store " + store + " is not answering"));
    assertThat(each).as("%s", log).hasSizeGreaterThanOrEqualTo(failedCalls - 1);
    assertThat(each).allSatisfy(e -> assertThat(e.more()).isEmpty());
    assertThat(whilePaused).containsEntry("store", store).containsKey("since");
  }

  /** Saves what the application wrote at the default levels (the report's log of the pause). */
  private static void save(Path file, BootLog log) throws IOException {
    Files.writeString(
        file,
        "# pause "
            + PAUSE.toSeconds()
            + " s, @Scheduled(fixedDelay = "
            + TICK
            + ") @Locked job; INFO and above\n"
            + log.operatorView()
            + "\n");
  }
}
