package dev.locksmith.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Scheduled jobs as a service would have them, each run recorded in one JVM-wide list so that a
 * test can see every instance's runs on one time line ({@link System#nanoTime()}).
 */
public class Jobs {

  /** One run of a job: which instance, when it started, the fencing token it held. */
  public record Run(String job, String instance, long startNanos, long token) {}

  /** Every run of every instance in this JVM. */
  static final List<Run> RUNS = new CopyOnWriteArrayList<>();

  private final String instance;

  public Jobs(@Value("${test.instance}") String instance) {
    this.instance = instance;
  }

  private void record(String job, long token) {
    RUNS.add(new Run(job, instance, System.nanoTime(), token));
  }

  /** Locked and held for at least 1.5 s of each 2 s period. */
  @Scheduled(cron = "${test.cron}")
  @Locked(name = "report", holdAtLeast = "1500ms")
  public void report() {
    record("report", LockContext.currentLease().fencingToken());
  }

  /** Locked but released as soon as it ends. */
  @Scheduled(cron = "${test.cron}")
  @Locked(name = "report-without-hold")
  public void reportWithoutHold() {
    record("report-without-hold", LockContext.currentLease().fencingToken());
  }

  /** Not locked: runs on every instance. */
  @Scheduled(cron = "${test.cron}")
  public void heartbeat() {
    record("heartbeat", -1);
  }

  /** The application: the jobs, and a scheduler whose clock is {@code test.clock-skew} ahead. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @EnableScheduling
  @Import({Jobs.class, Work.class})
  public static class App {
    @Bean
    ThreadPoolTaskScheduler taskScheduler(
        @Value("${test.clock-skew:0ms}") Duration skew,
        @Value("${test.instance}") String instance) {
      ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
      scheduler.setPoolSize(4);
      scheduler.setThreadNamePrefix(instance + "-scheduler-");
      scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), skew));
      return scheduler;
    }
  }
}
