package dev.locksmith.cli;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.locksmith.LockClient;
import dev.locksmith.cli.internal.LiveStoreContract;
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
      "2:usage error: no --uri, a malformed URI, or a URI whose JDBC driver is not on the class"
          + " path",
      "3:the store could not be reached (\"cannot reach ... cannot connect\")"
    })
final class TckCommand implements Callable<Integer> {

  @Option(names = "--uri", paramLabel = "URI", description = "The store to test.")
  String uri;

  @Option(
      names = "--rules",
      description = "Prints the kit's rules, grouped by promise, and exits (no --uri needed).")
  boolean printRules;

  @Option(
      names = "--short-lease",
      paramLabel = "MS",
      description = "The lease the expiry tests use, in ms (default: ${DEFAULT-VALUE}).")
  long shortLeaseMs = 600;

  @Option(
      names = "--slack",
      paramLabel = "MS",
      description =
          "How late the store may be beyond a promised time, in ms (default: 1000, plus two of"
              + " the store's clock units where they are coarser than a millisecond: 3000 on"
              + " memcached).")
  Long slackMs;

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
    if (shortLeaseMs < 1 || slackMs != null && slackMs < 0) {
      System.err.println("--short-lease must be positive and --slack not negative");
      return Locksmith.EXIT_USAGE;
    }
    String shown = LockUri.redact(uri);
    long slack;
    try (LockClient probe = LockClient.open(uri)) {
      slack = slackMs != null ? slackMs : LiveStoreContract.defaultSlack(probe).toMillis();
      System.out.println(
          "testing "
              + shown
              + " (capabilities: "
              + probe.capabilities()
              + "; timing slack "
              + slack
              + " ms)");
    } catch (IllegalArgumentException | dev.locksmith.UnsupportedLockUriException e) {
      // A missing JDBC driver lands here too: a packaging problem, not an unreachable store.
      System.err.println("bad URI: " + e.getMessage());
      return Locksmith.EXIT_USAGE;
    } catch (RuntimeException e) {
      System.err.println("cannot reach " + shown + ": " + e.getMessage());
      return Locksmith.EXIT_STORE_UNAVAILABLE;
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
