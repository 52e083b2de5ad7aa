package dev.locksmith.cli;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.locksmith.LockClient;
import dev.locksmith.cli.internal.LiveStoreContract;
import dev.locksmith.cli.internal.StoreCheck;
import dev.locksmith.spi.LockUri;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code locksmith tck}: the whole test kit against a live store. */
@Command(
    name = "tck",
    mixinStandardHelpOptions = true,
    versionProvider = Locksmith.Version.class,
    description = {
      "Runs the whole Locksmith test kit against a live store, rule by rule.",
      "%nTests use their own random lock names; faults are never injected into a live store, so"
          + " the rules that need them are skipped with a reason. JDBC URIs work for H2,"
          + " PostgreSQL and MariaDB/MySQL (jdbc:mariadb:), whose drivers ship with the command."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every rule that ran passed",
      "1:a rule failed: the store broke a promise",
      "2:usage error: no --uri, a malformed URI, an unknown scheme or URI option, a URI whose"
          + " JDBC driver is not on the class path, or a timing option out of range; no rule runs",
      "3:the store could not be reached (\"cannot reach ...\") or refused to lock (\"cannot"
          + " lock on ...\", such as a ZooKeeper ACL that denies this identity); no rule runs"
    })
final class TckCommand implements Callable<Integer> {

  @Option(
      names = "--uri",
      paramLabel = "URI",
      description =
          "The store to test, such as redis://host:6379, memcached://host:11211,"
              + " zookeeper://host:2181/locks, etcd://host:2379 or jdbc:postgresql://host/db.")
  String uri;

  @Option(
      names = "--rules",
      description = "Prints the kit's rules, grouped by promise, and exits (no --uri needed).")
  boolean printRules;

  @Option(
      names = "--short-lease",
      paramLabel = "MS",
      description =
          "The lease the expiry tests use, in ms, "
              + MIN_SHORT_LEASE_MS
              + " to "
              + MAX_TIMING_MS
              + " (default: ${DEFAULT-VALUE}).")
  long shortLeaseMs = 600;

  @Option(
      names = "--slack",
      paramLabel = "MS",
      description =
          "How late the store may be beyond a promised time, in ms, 0 to "
              + MAX_TIMING_MS
              + " (default: 1000, plus two of the store's clock units where they are coarser"
              + " than a millisecond: 3000 on memcached).")
  Long slackMs;

  /**
   * The shortest {@code --short-lease}: below it a round trip to a store across a network takes
   * longer than the lease, and the kit would blame the store for the network.
   */
  static final long MIN_SHORT_LEASE_MS = 100;

  /**
   * The longest {@code --short-lease} and {@code --slack}: a minute. The expiry rules wait for
   * both, many times over; longer would make the run last hours (and huge values overflow the kit's
   * time arithmetic, which then blames the store).
   */
  static final long MAX_TIMING_MS = 60_000;

  @Override
  public Integer call() {
    if (printRules) {
      System.out.print(dev.locksmith.tck.Rule.table());
      return 0;
    }
    if (uri == null) {
      System.err.println("Missing required option: '--uri=URI' (or --rules to list the rules)");
      return Locksmith.EXIT_USAGE;
    }
    if (shortLeaseMs < MIN_SHORT_LEASE_MS || shortLeaseMs > MAX_TIMING_MS) {
      System.err.println(
          "--short-lease must be between "
              + MIN_SHORT_LEASE_MS
              + " and "
              + MAX_TIMING_MS
              + " ms, was "
              + shortLeaseMs);
      return Locksmith.EXIT_USAGE;
    }
    if (slackMs != null && (slackMs < 0 || slackMs > MAX_TIMING_MS)) {
      System.err.println("--slack must be between 0 and " + MAX_TIMING_MS + " ms, was " + slackMs);
      return Locksmith.EXIT_USAGE;
    }
    String shown = LockUri.redact(uri);
    long slack;
    try (LockClient probe = StoreCheck.open(uri)) {
      slack = slackMs != null ? slackMs : LiveStoreContract.defaultSlack(probe).toMillis();
      System.out.println(
          "testing "
              + shown
              + " (capabilities: "
              + probe.capabilities()
              + "; timing slack "
              + slack
              + " ms)");
    } catch (StoreCheck.Failure e) {
      System.err.println(e.getMessage());
      return e.usage() ? Locksmith.EXIT_USAGE : Locksmith.EXIT_STORE_UNAVAILABLE;
    }
    System.setProperty(LiveStoreContract.URI, uri);
    System.setProperty(LiveStoreContract.SHORT_LEASE_MS, Long.toString(shortLeaseMs));
    System.setProperty(LiveStoreContract.SLACK_MS, Long.toString(slack));
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(LiveStoreContract.class))
            .build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    Progress progress = new Progress();
    long start = System.nanoTime();
    launcher.execute(request, summary, progress);
    TestExecutionSummary s = summary.getSummary();
    System.out.println();
    s.printFailuresTo(new PrintWriter(System.out, true), 5);
    System.out.printf(
        "%d tests: %d passed, %d failed, %d skipped (undeclared capabilities, faults a live store"
            + " cannot take) in %.0f s%n",
        s.getTestsFoundCount(),
        s.getTestsSucceededCount(),
        s.getTestsFailedCount(),
        s.getTestsSkippedCount() + s.getTestsAbortedCount(),
        Duration.ofNanos(System.nanoTime() - start).toMillis() / 1000.0);
    return s.getTestsFailedCount() > 0 ? Locksmith.EXIT_PROMISE_FAILED : 0;
  }

  /** Prints one line per finished test, so a long run shows it is alive. */
  private static final class Progress implements TestExecutionListener {
    private final AtomicInteger done = new AtomicInteger();

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      if (!id.isTest()) {
        return;
      }
      String mark =
          result.getStatus() == Status.SUCCESSFUL
              ? "ok  "
              : result.getStatus() == Status.ABORTED ? "skip" : "FAIL";
      String why =
          result.getStatus() == Status.ABORTED
              ? result.getThrowable().map(t -> " (" + forCliUser(t.getMessage()) + ")").orElse("")
              : "";
      System.out.printf("%4d %s %s%s%n", done.incrementAndGet(), mark, id.getDisplayName(), why);
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      if (id.isTest() || id.isContainer()) {
        System.out.printf("     skip %s: %s%n", id.getDisplayName(), forCliUser(reason));
      }
    }
  }

  /**
   * The kit's skip reasons are written for an implementer ("override faults() to run it"); a CLI
   * user cannot override anything, so say what the rule needs and how to get it from here.
   */
  static String forCliUser(String reason) {
    if (reason == null) {
      return "";
    }
    // The line already says "skip"; the kit's own "skipped: " prefix would say it twice.
    String why = reason.startsWith("skipped: ") ? reason.substring("skipped: ".length()) : reason;
    return why.replace(
            "no StoreFaults hook (override faults() to run it)",
            "needs fault injection (pausing, killing, restarting the store): not available against"
                + " a live deployment; 'locksmith compare' runs these faults on stores it starts")
        .replace(
            "no OutsideActor hook (override outsideActor() to run it)",
            "needs an outside actor deleting holds behind the clients' backs: not available"
                + " against a live deployment")
        .replace(
            "no StoreInspector hook (override inspector() to run it)",
            "needs to count and evict what the store keeps: not done to a live deployment;"
                + " 'locksmith compare' does it on stores it starts")
        .replace(
            "no ClientLinks hook (override links() to run it)",
            "needs to cut one client's network path through a proxy: not done to a live"
                + " deployment; each store module's own kit run does it")
        .replace(
            "no store URI another process can open (override storeUri() to run it)",
            "needs a store that another process can open: mem: and jdbc:h2:mem: stores live inside"
                + " this JVM; give a server's URI (redis://, jdbc:h2:tcp://, …) to run it");
  }
}
