package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockClient;
import dev.locksmith.cli.internal.LiveStoreContract;
import dev.locksmith.tck.fixture.MemcachedServer;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocksmithCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream oldOut;
  private PrintStream oldErr;

  @BeforeEach
  void capture() {
    oldOut = System.out;
    oldErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    System.setOut(oldOut);
    System.setErr(oldErr);
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private static int freePort() {
    return dev.locksmith.tck.fixture.ServerProcess.freePort();
  }

  @Test
  @DisplayName("no arguments is a usage error: exit 2 with the usage on standard error")
  void noArguments() {
    assertThat(Locksmith.run(new String[0])).isEqualTo(2);
    assertThat(stderr()).contains("Usage: locksmith");
    assertThat(stdout()).isEmpty();
  }

  @Test
  @DisplayName("--help gives each command a whole-sentence summary and lists the exit codes")
  void helpSummariesAndExitCodes() {
    assertThat(Locksmith.run("--help")).isZero();
    String help = stdout();
    String commands = help.substring(help.indexOf("Commands:"), help.indexOf("  help "));
    String compare =
        commands.substring(commands.indexOf("compare "), commands.indexOf("  tck ")).strip();
    assertThat(compare.replaceAll("\\s+", " ")).endsWith(".");
    assertThat(help)
        .contains("Exit codes:")
        .containsPattern("0 +success")
        .containsPattern("1 +a promise failed")
        .containsPattern("2 +usage error")
        .containsPattern("3 +a store could not be started or reached");
  }

  @Test
  @DisplayName(
      "--help names the store of every provider on the class path (etcd among them), SQL for"
          + " JDBC")
  void helpNamesEveryStore() {
    assertThat(Locksmith.run("--help")).isZero();
    String help = stdout().replaceAll("\\s+", " ");
    String description = help.substring(0, help.indexOf("Commands:"));
    java.util.Set<String> stores = new java.util.TreeSet<>();
    for (dev.locksmith.spi.LockProvider p :
        java.util.ServiceLoader.load(dev.locksmith.spi.LockProvider.class)) {
      stores.add(p.getClass().getPackageName().substring("dev.locksmith.".length()));
    }
    assertThat(stores).contains("etcd", "jdbc", "memcached", "redis", "zookeeper");
    for (String store : stores) {
      switch (store) {
        case "mem" -> {
          // In this JVM only: the examples' store, not one to lock a fleet with.
        }
        case "jdbc" -> assertThat(description).contains("SQL databases", "PostgreSQL", "H2");
        default -> assertThat(description.toLowerCase(java.util.Locale.ROOT)).contains(store);
      }
    }
  }

  @Test
  @DisplayName("compare --help names every store --stores takes, and the exit codes")
  void compareHelpNamesStores() {
    assertThat(Locksmith.run("compare", "--help")).isZero();
    // The stores come from the fixtures on the class path, the etcd store's among them.
    String names =
        String.join(
            ", ",
            dev.locksmith.tck.fixture.StoreFixture.all().stream()
                .map(dev.locksmith.tck.fixture.StoreFixture::name)
                .toList());
    assertThat(names).contains("etcd", "mem", "redis");
    assertThat(stdout().replaceAll("\\s+", " ")).contains(names).contains("Exit codes:");
  }

  @Test
  @DisplayName("compare at 80 columns: no line longer than 80, every store and long row shown")
  void compareAtEightyColumns(@TempDir Path dir) throws Exception {
    int code =
        Locksmith.run(
            "compare",
            "--stores",
            "mem,h2,zookeeper",
            "--samples",
            "100",
            "--handoffs",
            "3",
            "--width",
            "80",
            "--out",
            dir.toString());
    Path report = dir.resolve("compare.md");
    assertThat(code)
        .as("%s%n%s", stdout(), Files.exists(report) ? Files.readString(report) : "(no report)")
        .isZero();
    assertThat(stdout().lines().filter(l -> l.codePointCount(0, l.length()) > 80))
        .as(stdout())
        .isEmpty();
    assertThat(stdout())
        .contains("mem", "h2", "zookeeper", "crashed holder", "store killed and restarted");
    // Every word of every row label is printed whole: no label is broken inside a word.
    java.util.Set<String> words = new java.util.HashSet<>();
    for (String w : stdout().split("\\s+")) {
      words.add(w.endsWith(":") ? w.substring(0, w.length() - 1) : w);
    }
    for (String label : dev.locksmith.cli.internal.ReportWriter.labels()) {
      assertThat(words).as("the words of '%s' in%n%s", label, stdout()).contains(label.split(" "));
    }
    // ZooKeeper's fixture pauses by stopping its in-JVM server: the row says so, and that calls
    // failed, rather than that it could not be paused.
    assertThat(stdout().replaceAll("\\s+", " "))
        .contains("store stopped for")
        .contains("its fixture pauses by stopping the server, so calls failed rather than hung")
        .doesNotContain("cannot be paused");
  }

  @Test
  @DisplayName(
      "tck with a JDBC URI whose driver is not on the class path names the missing driver (exit 2)")
  void tckMissingDriver() throws Exception {
    int code = Locksmith.run("tck", "--uri", "jdbc:sqlserver://127.0.0.1:" + freePort());
    assertThat(code).as(stderr()).isEqualTo(2);
    assertThat(stderr()).contains("no JDBC driver for 'jdbc:sqlserver:'");
  }

  @Test
  @DisplayName(
      "tck against a dead PostgreSQL or MariaDB (a port with nothing listening) says cannot"
          + " connect and exits 3: the drivers ship with the command")
  void tckDeadDatabase() throws Exception {
    for (String uri :
        java.util.List.of(
            "jdbc:postgresql://127.0.0.1:" + freePort() + "/app",
            "jdbc:mariadb://127.0.0.1:" + freePort() + "/app")) {
      err.reset();
      int code = Locksmith.run("tck", "--uri", uri);
      assertThat(code).as(uri + ": " + stderr()).isEqualTo(Locksmith.EXIT_STORE_UNAVAILABLE);
      assertThat(stderr()).contains("cannot connect").doesNotContainIgnoringCase("driver");
    }
  }

  @Test
  @DisplayName("compare on mem prints the table, writes Markdown and HTML, and exits 0")
  void compareOnMem(@TempDir Path dir) throws Exception {
    int code =
        Locksmith.run(
            "compare",
            "--stores",
            "mem",
            "--samples",
            "200",
            "--handoffs",
            "5",
            "--out",
            dir.toString());
    assertThat(code).as(stdout()).isZero();
    assertThat(stdout()).contains("acquire+release p50", "release after expiry", "broken promises");
    // Standard output is the table and nothing else; what the command did went to standard error
    // (a line per step: standard error is not a terminal here).
    assertThat(stdout().lines().findFirst())
        .hasValueSatisfying(header -> assertThat(header).matches("\\s*(\\| )?mem"));
    assertThat(stdout())
        .doesNotContain("starting", "capabilities...", "wrote", "...")
        .endsWith("none\n");
    assertThat(stderr().lines())
        .contains(
            "starting mem...",
            "  mem        capabilities...",
            "  mem        store restarted...",
            "wrote " + dir.resolve("compare.md"),
            "  and " + dir.resolve("compare.html"));
    assertThat(Files.readString(dir.resolve("compare.md")))
        .contains("| | mem |", "## Caveats per store", "### mem");
    assertThat(Files.readString(dir.resolve("compare.html")))
        .contains("<svg", "polyline", "Hand-off: release to the next waiter");
  }

  @Test
  @DisplayName("an unknown store name is a usage error that lists the known ones")
  void unknownStore() {
    int code = Locksmith.run("compare", "--stores", "oracle");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown store 'oracle'", "mem");
  }

  @Test
  @DisplayName("out-of-range sizes are usage errors")
  void badSizes() {
    assertThat(Locksmith.run("compare", "--samples", "0")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--samples must be between");
  }

  @Test
  @DisplayName("tck without --uri is a usage error; with an unknown scheme it says so")
  void tckUsage() {
    assertThat(Locksmith.run("tck")).isEqualTo(2);
    assertThat(Locksmith.run("tck", "--uri", "nosuch://x")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("no lock provider for URI scheme 'nosuch'");
  }

  @Test
  @DisplayName(
      "tck against a memcached port with nothing listening fails at once with exit 3, before"
          + " any rule runs")
  void tckOnUnreachableStore() throws Exception {
    // The port stays taken by a socket that never answers: a port merely found free and closed
    // again was once taken meanwhile by a memcached of a test running beside this one, and the
    // kit then ran against it.
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
      int code = Locksmith.run("tck", "--uri", "memcached://127.0.0.1:" + silent.getLocalPort());
      assertThat(code).as(stdout()).isEqualTo(Locksmith.EXIT_STORE_UNAVAILABLE);
      assertThat(err.toString(StandardCharsets.UTF_8)).contains("no server answered");
      assertThat(stdout()).doesNotContain("Rule ");
    }
  }

  @Test
  @DisplayName(
      "tck's default slack is 1 s on a millisecond store and 3 s on memcached, whose whole-second"
          + " items live up to two seconds past the lease")
  void tckDefaultSlackFollowsTheStoreClock() {
    try (LockClient mem = LockClient.open("mem:cli-slack")) {
      assertThat(LiveStoreContract.defaultSlack(mem)).isEqualTo(Duration.ofSeconds(1));
    }
    try (ServerProcess memcached = MemcachedServer.start(16);
        LockClient client = LockClient.open(MemcachedServer.uri(memcached))) {
      assertThat(LiveStoreContract.defaultSlack(client)).isEqualTo(Duration.ofSeconds(3));
    }
    assertThatThrownBy(() -> LiveStoreContract.defaultSlack(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("client");
  }

  @Test
  @DisplayName("tck --rules prints every rule, grouped by promise, without a store")
  void tckRules() {
    assertThat(Locksmith.run("tck", "--rules")).isZero();
    assertThat(stdout()).contains("1. Mutual exclusion", "12.2", "14. The engine's promises");
  }

  @Test
  @DisplayName("tck runs the whole kit against a store by URI and exits 0 when it passes")
  void tckOnMem() {
    int code = Locksmith.run("tck", "--uri", "mem:cli-tck");
    assertThat(code).as(stdout()).isZero();
    assertThat(stdout()).contains("timing slack 1000 ms");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\d+) tests: (\\d+) passed, 0 failed, (\\d+) skipped")
            .matcher(stdout());
    assertThat(m.find()).as(stdout()).isTrue();
    int total = Integer.parseInt(m.group(1));
    int skipped = Integer.parseInt(m.group(3));
    assertThat(total).as("the kit has its tests").isGreaterThan(60);
    assertThat(Integer.parseInt(m.group(2)) + skipped).isEqualTo(total);
    // A live store gets no injected faults, no outside actor, no inspector and no links (8 + 1 + 2
    // + 1 rules), a mem: store lives in this JVM only, so the 5 multi-process rules cannot reach
    // it, and without ?waiters=queue it keeps no queue for the 2 queue rules.
    assertThat(skipped).isLessThanOrEqualTo(19);
    assertThat(stdout())
        .contains("skip Rule 7.9:")
        .contains(": the store does not declare FAIR_QUEUE");
    assertThat(stdout()).doesNotContain(" FAIL ");
    // The rules run and print in rule order, 1.1 first.
    java.util.List<int[]> ids = new java.util.ArrayList<>();
    java.util.regex.Matcher rule =
        java.util.regex.Pattern.compile("Rule (\\d+)\\.(\\d+):").matcher(stdout());
    while (rule.find()) {
      ids.add(new int[] {Integer.parseInt(rule.group(1)), Integer.parseInt(rule.group(2))});
    }
    // (Parameterized rules print their invocations without the rule id.)
    assertThat(ids).hasSizeGreaterThan(80);
    assertThat(ids.get(0)).containsExactly(1, 1);
    for (int i = 1; i < ids.size(); i++) {
      int[] a = ids.get(i - 1);
      int[] b = ids.get(i);
      assertThat(a[0] < b[0] || (a[0] == b[0] && a[1] <= b[1]))
          .as("rule %d.%d printed after %d.%d", b[0], b[1], a[0], a[1])
          .isTrue();
    }
    // Skip reasons speak to a CLI user, who cannot override the kit's hooks.
    assertThat(stdout())
        .doesNotContainPattern("override \\w+\\(\\)")
        .contains("needs fault injection")
        .doesNotContain("skipped: ");
  }
}
