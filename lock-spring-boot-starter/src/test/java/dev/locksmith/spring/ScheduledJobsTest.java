package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.internal.EngineClient;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * ShedLock's scheduled-job scenarios, as its README describes them, run against the starter: two
 * instances of one application on one Redis server, the second with its scheduler's clock 800 ms
 * ahead (the clock difference ShedLock's {@code lockAtLeastFor} is for). Jobs run every 2 s.
 */
@SpringBootTest(
    classes = Jobs.App.class,
    properties = {"test.instance=a", "test.cron=*/2 * * * * *", "locksmith.lease-time=1s"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScheduledJobsTest {

  private static final Duration SKEW = Duration.ofMillis(800);
  private static final Duration PERIOD = Duration.ofSeconds(2);

  @DynamicPropertySource
  static void store(DynamicPropertyRegistry registry) {
    registry.add("locksmith.uri", SharedRedis::uri);
  }

  @Autowired Work a;
  private ConfigurableApplicationContext second;
  private Work b;

  @BeforeAll
  void startSkewedInstance() {
    second = instance("b", SKEW, "*/2 * * * * *");
    b = second.getBean(Work.class);
  }

  @AfterAll
  void stop() {
    second.close();
  }

  private static ConfigurableApplicationContext instance(String name, Duration skew, String cron) {
    return new SpringApplicationBuilder(Jobs.App.class)
        .properties(
            Map.of(
                "test.instance",
                name,
                "test.cron",
                cron,
                "test.clock-skew",
                skew.toMillis() + "ms",
                "locksmith.uri",
                SharedRedis.uri(),
                "locksmith.lease-time",
                "1s"))
        .run();
  }

  private static List<Jobs.Run> runsOf(String job) {
    return Jobs.RUNS.stream()
        .filter(r -> r.job().equals(job))
        .sorted(Comparator.comparingLong(Jobs.Run::startNanos))
        .toList();
  }

  private static Duration gap(Jobs.Run earlier, Jobs.Run later) {
    return Duration.ofNanos(later.startNanos() - earlier.startNanos());
  }

  @Test
  @DisplayName(
      "ShedLock example (lockAtLeastFor): a short job on two skewed instances runs once per period")
  void oncePerPeriod() {
    // ShedLock README, "Example": a task scheduled every period on every node, configured with
    // lockAtLeastFor just under the period, runs at most once per period; "Caveats" 2: without
    // it, a clock difference larger than the task's run time lets it run more than once.
    long start = System.nanoTime();
    await().atMost(Duration.ofSeconds(30)).until(() -> runsOf("report").size() >= 4);
    long end = System.nanoTime();
    List<Jobs.Run> held = runsOf("report");
    for (int i = 1; i < held.size(); i++) {
      assertThat(gap(held.get(i - 1), held.get(i)))
          .as("runs of the held job are at least holdAtLeast apart")
          .isGreaterThanOrEqualTo(Duration.ofMillis(1400));
      assertThat(held.get(i).token())
          .as("each run passes on a larger fencing token (LockContext.currentLease())")
          .isGreaterThan(held.get(i - 1).token());
    }
    long periods = Duration.ofNanos(end - start).dividedBy(PERIOD) + 2;
    assertThat(held.stream().filter(r -> r.startNanos() >= start).count())
        .isLessThanOrEqualTo(periods);

    // The control, counted rather than timed so that a loaded machine cannot blur it: over the
    // same periods, the job without holdAtLeast runs on both skewed instances, so more often.
    long heldRuns = held.stream().filter(r -> r.startNanos() >= start).count();
    long unheldRuns =
        runsOf("report-without-hold").stream()
            .filter(r -> r.startNanos() >= start && r.startNanos() <= end)
            .count();
    assertThat(unheldRuns)
        .as("without holdAtLeast the skewed instances both run in a period (the control)")
        .isGreaterThan(heldRuns);
    assertThat(runsOf("heartbeat").stream().map(Jobs.Run::instance).distinct())
        .as("ShedLock behaviour 1: methods without the annotation are not locked")
        .containsExactlyInAnyOrder("a", "b");
  }

  @Test
  @DisplayName(
      "lockAtMostFor is replaced by renewal: a job three leases long never runs on two instances")
  void renewalInsteadOfLockAtMostFor() throws Exception {
    // ShedLock README, "Caveats" 1: if the task runs longer than lockAtMostFor it can run more
    // than once. Here the lease (1 s) is renewed while the job runs, so it never runs twice at
    // once, however long it takes; no lockAtMostFor to guess.
    CompletableFuture<Optional<Lease>> longRun =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return a.slow(Duration.ofSeconds(3));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> b.slow(Duration.ZERO).isEmpty());
    long until = System.nanoTime() + Duration.ofMillis(2500).toNanos();
    while (System.nanoTime() < until && !longRun.isDone()) {
      assertThat(b.slow(Duration.ZERO)).as("the other instance is skipped while it runs").isEmpty();
      Thread.sleep(100);
    }
    assertThat(longRun.get(20, TimeUnit.SECONDS)).isPresent();
    assertThat(b.slow(Duration.ZERO)).as("free once the job ended").isPresent();
  }

  @Test
  @DisplayName("a crashed instance's lock frees after its lease, not after a guessed lockAtMostFor")
  void crashedHolderFrees() throws Exception {
    // ShedLock README, "Behavior" 5: if the JVM crashes before the task finishes, the lock is
    // released after lockAtMostFor. Here it frees one lease time (1 s) after the last renewal.
    ConfigurableApplicationContext doomed = instance("c", Duration.ZERO, "-");
    ExecutorService jobThread = Executors.newSingleThreadExecutor();
    try {
      Work c = doomed.getBean(Work.class);
      jobThread.submit(() -> c.slow(Duration.ofSeconds(30)));
      await().atMost(Duration.ofSeconds(10)).until(() -> b.slow(Duration.ZERO).isEmpty());
      long crashedAt = System.nanoTime();
      ((EngineClient) doomed.getBean(LockClient.class)).crash(); // renewal stops, nothing released
      assertThat(b.slow(Duration.ZERO)).as("still held right after the crash").isEmpty();
      await().atMost(Duration.ofSeconds(10)).until(() -> b.slow(Duration.ZERO).isPresent());
      assertThat(Duration.ofNanos(System.nanoTime() - crashedAt)).isLessThan(Duration.ofSeconds(5));
    } finally {
      jobThread.shutdownNow();
      doomed.close();
    }
  }
}
