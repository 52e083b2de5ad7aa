package dev.locksmith.examples.scheduler;

import dev.locksmith.spring.LockContext;
import dev.locksmith.spring.Locked;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Two scheduled jobs that every instance schedules and only one instance runs at a time.
 *
 * <p>The report is short but must run once per period: {@code holdAtLeast} keeps its lock taken
 * until just before the next period, so an instance whose clock is a little behind does not run it
 * again. The cleanup may run long: its lease is renewed while it runs, so there is no {@code
 * lockAtMostFor} to guess.
 */
@Component
public class ReportJobs {

  private static final Logger log = LoggerFactory.getLogger(ReportJobs.class);

  /** One run of the report: when, and the fencing token it wrote with. */
  public record ReportRun(Instant at, long nanoTime, long fencingToken) {}

  private final List<ReportRun> reports = new CopyOnWriteArrayList<>();

  @Scheduled(cron = "${jobs.report.cron}")
  @Locked(name = "report", holdAtLeast = "${jobs.report.hold-at-least}")
  public void report() {
    long token = LockContext.currentLease().fencingToken();
    reports.add(new ReportRun(Instant.now(), System.nanoTime(), token));
    log.info("Report written with fencing token {}", token);
  }

  @Scheduled(fixedDelayString = "${jobs.cleanup.delay}")
  @Locked(name = "cleanup")
  public void cleanup() {
    log.debug("Cleanup ran");
  }

  /** The reports this instance wrote. */
  public List<ReportRun> reports() {
    return List.copyOf(reports);
  }
}
