package dev.locksmith.cli;

import dev.locksmith.LockClient;
import dev.locksmith.cli.internal.Comparison;
import dev.locksmith.cli.internal.Progress;
import dev.locksmith.cli.internal.ReportWriter;
import dev.locksmith.cli.internal.StoreCatalog;
import dev.locksmith.cli.internal.StoreCheck;
import dev.locksmith.cli.internal.StoreReport;
import dev.locksmith.cli.internal.StoreTarget;
import dev.locksmith.spi.LockUri;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code locksmith compare}: the same scenarios on every store, side by side.
 *
 * <p>With no arguments it runs on the embedded stores plus Redis, Memcached and etcd when their
 * binaries are on the PATH, each started on a free loopback port and stopped afterwards. Standard
 * output carries the table only; what the command is doing goes to standard error.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    versionProvider = Locksmith.Version.class,
    description = {
      "Runs the same scenarios on every store and prints the results side by side.",
      "%nThe scenarios: capabilities, uncontended and hand-off latency, a crashed holder, the"
          + " store paused and restarted, a skewed client clock, a release after expiry, what"
          + " 1,000 released names leave behind, the token after the store dropped its idle"
          + " state. With no --stores or --uri it starts every store available here on free"
          + " loopback ports (every store whose fixture is on the class path: etcd, H2, mem,"
          + " memcached, Redis and ZooKeeper built in; one that needs a server binary missing"
          + " here is skipped, saying which) and stops them afterwards. Standard output gets the"
          + " table only, progress goes to standard error. Also writes compare.md and"
          + " compare.html (how each store was run, latency charts) into --out."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every scenario ran and no promise was broken",
      "1:a store broke a promise (see the 'broken promises' row)",
      "2:usage error (unknown option or store name, a value out of range, a bad --uri, an --out"
          + " directory that cannot be written); nothing runs and no file is written",
      "3:a store could not be started, or a --uri store could not be reached or refused to lock"
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
          "A live store to include (repeatable), e.g. redis=redis://10.0.0.5:6379 or"
              + " etcd://10.0.0.6:2379 (named after its scheme). Faults are not injected into"
              + " live stores.")
  List<String> uris = new ArrayList<>();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where to write compare.md and compare.html (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("target", "compare");

  @Option(
      names = "--samples",
      paramLabel = "N",
      description =
          "Uncontended acquire+release samples per store, 10 to 1000000 (default:"
              + " ${DEFAULT-VALUE}).")
  int samples = 2000;

  @Option(
      names = "--handoffs",
      paramLabel = "N",
      description = "Hand-offs measured per store, 1 to 10000 (default: ${DEFAULT-VALUE}).")
  int handoffs = 50;

  @Option(
      names = "--width",
      paramLabel = "COLUMNS",
      description =
          "Width of the printed table, 40 to 1000 (default: the COLUMNS environment variable,"
              + " else the terminal's width, else 80). Narrow widths list long cells store by"
              + " store.")
  @Nullable Integer width;

  /** A store name given with {@code --uri NAME=URI}: what the report's columns and ids take. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,39}");

  /** A usage error found before any work: its message, printed as one line (exit 2). */
  private static final class Usage extends Exception {
    private static final long serialVersionUID = 1L;

    Usage(String message) {
      super(message);
    }
  }

  @Override
  public Integer call() {
    try {
      return compare();
    } catch (Usage e) {
      System.err.println(e.getMessage());
      System.err.println("(see locksmith compare --help)");
      return Locksmith.EXIT_USAGE;
    }
  }

  private int compare() throws Usage {
    // Every argument is checked before any work, so a usage error leaves nothing behind.
    if (samples < 10 || samples > 1_000_000) {
      throw new Usage("--samples must be between 10 and 1000000, was " + samples);
    }
    if (width != null && (width < 40 || width > 1000)) {
      throw new Usage("--width must be between 40 and 1000, was " + width);
    }
    if (handoffs < 1 || handoffs > 10_000) {
      throw new Usage("--handoffs must be between 1 and 10000, was " + handoffs);
    }
    StoreCatalog catalog = StoreCatalog.local();
    List<StoreCatalog.Entry> chosen = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    Map<String, Live> live = liveStores();
    if (stores.isEmpty() && uris.isEmpty()) {
      for (StoreCatalog.Entry e : catalog.all()) {
        if (e.available()) {
          chosen.add(e);
        } else {
          skipped.add("skipping " + e.name() + ": " + e.unavailableBecause());
        }
      }
    } else {
      for (String s : stores) {
        StoreCatalog.Entry e;
        try {
          e = catalog.get(s.trim());
        } catch (IllegalArgumentException unknown) {
          throw new Usage("--stores: " + unknown.getMessage());
        }
        if (chosen.contains(e)) {
          throw new Usage("--stores names " + e.name() + " twice");
        }
        if (live.containsKey(e.name())) {
          throw new Usage(
              "two stores named '"
                  + e.name()
                  + "' (--stores and --uri); name the live one: --uri NAME=URI");
        }
        chosen.add(e);
      }
    }
    Path outDir = checkWritable(out);
    for (StoreCatalog.Entry e : chosen) {
      if (!e.available()) {
        System.err.println("cannot start " + e.name() + ": " + e.unavailableBecause());
        return Locksmith.EXIT_STORE_UNAVAILABLE;
      }
    }
    for (Live l : live.values()) {
      try (LockClient checked = StoreCheck.open(l.uri())) {
        // Opened, locked and released: the store can be compared.
      } catch (StoreCheck.Failure f) {
        String what = "--uri " + LockUri.redact(l.spec()) + ": " + f.getMessage();
        if (f.usage()) {
          throw new Usage(what);
        }
        System.err.println(what);
        return Locksmith.EXIT_STORE_UNAVAILABLE;
      }
    }

    int columns = width == null ? TerminalWidth.forStandardOutput() : width;
    Progress progress = Progress.onStandardError(TerminalWidth::forStandardError);
    skipped.forEach(progress::line);
    Comparison comparison = new Comparison(new Comparison.Sizes(samples, handoffs), progress);
    List<StoreReport> reports = new ArrayList<>();
    long start = System.nanoTime();
    for (StoreCatalog.Entry e : chosen) {
      progress.step("starting " + e.name() + "...");
      StoreTarget target;
      try {
        target = e.start();
      } catch (RuntimeException ex) {
        progress.line("could not start " + e.name() + ": " + ex.getMessage());
        return Locksmith.EXIT_STORE_UNAVAILABLE;
      }
      try (target) {
        reports.add(comparison.run(target, target.sharedAcrossProcesses()));
      }
    }
    for (Live l : live.values()) {
      progress.step("comparing live store " + l.name() + "...");
      try (StoreTarget target = StoreTarget.live(l.name(), l.uri())) {
        reports.add(comparison.run(target, true));
      }
    }
    progress.done();
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
    ReportWriter writer =
        new ReportWriter(reports, machine, Locksmith.version(), ZonedDateTime.now());
    // Standard output gets the table and nothing else: `compare > table.txt` is the table.
    System.out.print(writer.text(columns));
    System.out.flush();
    try {
      Files.createDirectories(outDir);
      writer.writeFiles(outDir);
    } catch (IOException | SecurityException e) {
      System.err.println("cannot write the report into " + outDir + ": " + e);
      return Locksmith.EXIT_USAGE;
    }
    // One path a line: paths are long, and a terminal wraps a long line mid-path.
    System.err.println("wrote " + outDir.resolve("compare.md"));
    System.err.println("  and " + outDir.resolve("compare.html"));
    boolean broken = reports.stream().anyMatch(r -> !r.brokenPromises().isEmpty());
    return broken ? Locksmith.EXIT_PROMISE_FAILED : 0;
  }

  /** A live store of {@code --uri}: its name, the argument as given, and its URI. */
  private record Live(String name, String spec, String uri) {}

  /**
   * The live stores of {@code --uri}, by name: {@code NAME=URI}, or a URI named after its scheme.
   * Only the form is checked here; whether the URI opens, {@link StoreCheck} finds out.
   */
  private Map<String, Live> liveStores() throws Usage {
    Map<String, Live> live = new LinkedHashMap<>();
    for (String spec : uris) {
      int eq = spec.indexOf('=');
      boolean named = eq > 0 && !spec.substring(0, eq).contains(":");
      String uri = named ? spec.substring(eq + 1) : spec;
      String name;
      if (named) {
        name = spec.substring(0, eq);
      } else {
        int colon = spec.indexOf(':');
        if (colon <= 0) {
          throw new Usage(
              "--uri '"
                  + LockUri.redact(spec)
                  + "' is not a lock URI; write [NAME=]URI, such as redis=redis://host:6379 or"
                  + " etcd://host:2379");
        }
        name = spec.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
      }
      if (!NAME.matcher(name).matches()) {
        throw new Usage(
            "--uri '"
                + LockUri.redact(spec)
                + "': the store name '"
                + name
                + "' must be letters, digits, '.', '_' or '-' (at most 40), starting with a"
                + " letter or digit");
      }
      if (uri.isBlank()) {
        throw new Usage("--uri '" + spec + "' names no URI after '='");
      }
      if (live.putIfAbsent(name, new Live(name, spec, uri)) != null) {
        throw new Usage(
            "--uri names store '" + name + "' twice; give each its own name: --uri NAME=URI");
      }
    }
    return live;
  }

  /**
   * {@code dir} once it is a directory this process can write to, or can create: the directory
   * itself is created only when the report is written, so a run stopped by a usage error leaves
   * nothing behind.
   *
   * @throws Usage naming the directory and why not (one line, no stack trace)
   */
  private static Path checkWritable(Path dir) throws Usage {
    Path existing = dir.toAbsolutePath().normalize();
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      throw new Usage("--out " + dir + ": no part of the path exists");
    }
    if (!Files.isDirectory(existing)) {
      throw new Usage(
          "--out " + dir + ": cannot create the directory (" + existing + " is not a directory)");
    }
    if (!Files.isWritable(existing)) {
      throw new Usage(
          "--out "
              + dir
              + ": "
              + (existing.equals(dir.toAbsolutePath().normalize())
                  ? "this user cannot write to the directory"
                  : "cannot create the directory (this user cannot write to " + existing + ")"));
    }
    return dir;
  }
}
