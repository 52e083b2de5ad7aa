package dev.locksmith.cli;

import dev.locksmith.cli.internal.Comparison;
import dev.locksmith.cli.internal.ReportWriter;
import dev.locksmith.cli.internal.StoreCatalog;
import dev.locksmith.cli.internal.StoreReport;
import dev.locksmith.cli.internal.StoreTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code locksmith compare}: the same scenarios on every store, side by side.
 *
 * <p>With no arguments it runs on the embedded stores plus Redis and Memcached when their binaries
 * are on the PATH, each started on a free loopback port and stopped afterwards.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the same scenarios on every store and prints the results side by side.",
      "%nThe scenarios: capabilities, uncontended and hand-off latency, a crashed holder, the"
          + " store paused and restarted, a skewed client clock, a release after expiry. With no"
          + " --stores or --uri it starts every store available here on free loopback ports"
          + " (every store whose fixture is on the class path; one that needs a server binary"
          + " missing here is skipped, saying which) and stops them"
          + " afterwards. Also writes compare.md and compare.html (with latency charts) into"
          + " --out."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every scenario ran and no promise was broken",
      "1:a store broke a promise (see the 'broken promises' row)",
      "2:usage error (unknown option or store name)",
      "3:a store could not be started"
    })
final class CompareCommand implements Callable<Integer> {

  @Option(
      names = "--stores",
      split = ",",
      paramLabel = "NAME",
      completionCandidates = StoreCatalog.Names.class,
      description =
          "Stores to start and compare, from: ${COMPLETION-CANDIDATES} (default: every one"
              + " available here).")
  List<String> stores = new ArrayList<>();

  @Option(
      names = "--uri",
      paramLabel = "[NAME=]URI",
      description =
          "A live store to include (repeatable), e.g. redis=redis://10.0.0.5:6379. Faults are not"
              + " injected into live stores.")
  List<String> uris = new ArrayList<>();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where to write compare.md and compare.html (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("target", "compare");

  @Option(
      names = "--samples",
      paramLabel = "N",
      description = "Uncontended acquire+release samples per store (default: ${DEFAULT-VALUE}).")
  int samples = 2000;

  @Option(
      names = "--handoffs",
      paramLabel = "N",
      description = "Hand-offs measured per store (default: ${DEFAULT-VALUE}).")
  int handoffs = 50;

  @Option(
      names = "--width",
      paramLabel = "COLUMNS",
      description =
          "Width of the printed table (default: the COLUMNS environment variable, else the"
              + " terminal's width, else 80). Narrow widths list long cells store by store.")
  @Nullable Integer width;

  @Override
  public Integer call() throws Exception {
    if (samples < 10 || samples > 1_000_000) {
      throw new picocli.CommandLine.ParameterException(
          new picocli.CommandLine(this),
          "--samples must be between 10 and 1000000, was " + samples);
    }
    if (width != null && (width < 40 || width > 1000)) {
      throw new picocli.CommandLine.ParameterException(
          new picocli.CommandLine(this), "--width must be between 40 and 1000, was " + width);
    }
    if (handoffs < 1 || handoffs > 10_000) {
      throw new picocli.CommandLine.ParameterException(
          new picocli.CommandLine(this), "--handoffs must be between 1 and 10000, was " + handoffs);
    }
    StoreCatalog catalog = StoreCatalog.local();
    List<StoreCatalog.Entry> chosen = new ArrayList<>();
    if (stores.isEmpty() && uris.isEmpty()) {
      for (StoreCatalog.Entry e : catalog.all()) {
        if (e.available()) {
          chosen.add(e);
        } else {
          System.out.println("skipping " + e.name() + ": " + e.unavailableBecause());
        }
      }
    } else {
      for (String s : stores) {
        StoreCatalog.Entry e;
        try {
          e = catalog.get(s.trim());
        } catch (IllegalArgumentException unknown) {
          throw new picocli.CommandLine.ParameterException(
              new picocli.CommandLine(this), unknown.getMessage());
        }
        if (!e.available()) {
          System.err.println("cannot start " + e.name() + ": " + e.unavailableBecause());
          return Locksmith.EXIT_STORE_UNAVAILABLE;
        }
        chosen.add(e);
      }
    }
    Comparison comparison = new Comparison(new Comparison.Sizes(samples, handoffs), System.out);
    List<StoreReport> reports = new ArrayList<>();
    long start = System.nanoTime();
    for (StoreCatalog.Entry e : chosen) {
      System.out.println("starting " + e.name() + "...");
      StoreTarget target;
      try {
        target = e.start();
      } catch (RuntimeException ex) {
        System.err.println("could not start " + e.name() + ": " + ex.getMessage());
        return Locksmith.EXIT_STORE_UNAVAILABLE;
      }
      try (target) {
        reports.add(comparison.run(target, target.sharedAcrossProcesses()));
      }
    }
    for (String spec : uris) {
      int eq = spec.indexOf('=');
      boolean named = eq > 0 && !spec.substring(0, eq).contains(":");
      String name = named ? spec.substring(0, eq) : spec.substring(0, spec.indexOf(':'));
      String uri = named ? spec.substring(eq + 1) : spec;
      try (StoreTarget target = StoreTarget.live(name, uri)) {
        System.out.println("comparing live store " + name + "...");
        reports.add(comparison.run(target, true));
      }
    }
    String machine =
        String.format(
            "%d cores, Java %s, %s; %d samples, %d hand-offs (after %d warm-up ones, not"
                + " counted) per store; %.0f s in all",
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"),
            System.getProperty("os.name") + " " + System.getProperty("os.arch"),
            samples,
            handoffs,
            Comparison.warmUpHandoffs(handoffs),
            (System.nanoTime() - start) / 1e9);
    ReportWriter writer = new ReportWriter(reports, machine);
    System.out.println();
    System.out.println(writer.text(width == null ? TerminalWidth.detect() : width));
    writer.writeFiles(out);
    // One path a line: paths are long, and a terminal wraps a long line mid-path.
    System.out.println("wrote " + out.resolve("compare.md"));
    System.out.println("  and " + out.resolve("compare.html"));
    boolean broken = reports.stream().anyMatch(r -> !r.brokenPromises().isEmpty());
    return broken ? Locksmith.EXIT_PROMISE_FAILED : 0;
  }
}
