package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A newcomer's first {@code locksmith compare}: every store this machine can start (redis-server,
 * memcached and etcd must be on the PATH, as {@code scripts/test} ensures), run once, then checked
 * for what the user sees: exit code, standard error, the table at 100 columns, and the HTML report.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompareFirstRunTest {

  private static final List<String> STORES =
      List.of("etcd", "h2", "mem", "memcached", "redis", "zookeeper");

  private int code;
  private String stdout;
  private String stderr;
  private String markdown;
  private Document html;

  @BeforeAll
  void runCompare(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      code =
          Locksmith.run(
              "compare",
              "--samples",
              "300",
              "--handoffs",
              "30",
              "--width",
              "100",
              "--out",
              dir.toString());
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    stdout = out.toString(StandardCharsets.UTF_8);
    stderr = err.toString(StandardCharsets.UTF_8);
    markdown = Files.readString(dir.resolve("compare.md"));
    html = Jsoup.parse(dir.resolve("compare.html").toFile(), "UTF-8");
  }

  @Test
  @DisplayName("the run compares all five stores and exits 0")
  void comparesEveryStore() {
    assertThat(code).as(stdout + stderr).isZero();
    assertThat(stdout + stderr).doesNotContain("skipping");
    assertThat(markdown).contains("| | " + String.join(" | ", STORES) + " |");
  }

  @Test
  @DisplayName(
      "standard output is the table alone; what the command is doing goes to standard error")
  void progressOnStandardError() {
    List<String> lines = stdout.lines().toList();
    assertThat(lines.get(0).split("[\\s|]+"))
        .as("the table's header first:%n%s", stdout)
        .containsSubsequence(STORES);
    assertThat(lines)
        .as(stdout)
        .noneMatch(l -> l.endsWith("...") || l.startsWith("starting ") || l.startsWith("wrote "));
    assertThat(stderr.lines()).contains("starting etcd...", "starting zookeeper...");
    assertThat(stderr.lines().filter(l -> l.endsWith("store paused..."))).hasSize(STORES.size());
    assertThat(stderr).contains("wrote ");
  }

  @Test
  @DisplayName("a successful run prints no stack trace and no exception on standard error")
  void noStackTraces() {
    List<String> bad =
        stderr.lines().filter(l -> l.startsWith("\tat ") || l.contains("Exception")).toList();
    assertThat(bad).as(stderr).isEmpty();
  }

  @Test
  @DisplayName("at --width 100 no line of standard output is longer than 100 columns")
  void fitsHundredColumns() {
    assertThat(stdout.lines().filter(l -> l.codePointCount(0, l.length()) > 100))
        .as(stdout)
        .isEmpty();
    assertThat(stdout).contains("crashed holder", "hand-off p99", "release after expiry");
  }

  @Test
  @DisplayName(
      "the crashed-holder cell says how the holder died: in this JVM or SIGKILL of its own")
  void crashCellSaysHowTheHolderDied() {
    Map<String, String> crash = row("crashed holder");
    assertThat(crash.get("mem")).contains("inside this JVM");
    for (String separate : List.of("etcd", "h2", "zookeeper", "redis", "memcached")) {
      assertThat(crash.get(separate)).as(separate).contains("separate JVM", "SIGKILL");
    }
  }

  @Test
  @DisplayName(
      "every store keeps at most its shared few entries of 1,000 released names, and its tokens"
          + " keep rising after it dropped everything idle")
  void footprintAndEviction() {
    Map<String, String> footprint = row("left after 1,000 names");
    Map<String, String> tokens = row("token after eviction");
    for (String store : STORES) {
      assertThat(footprint.get(store)).as(store).matches("\\d entr(y|ies) \\(shared.*");
      assertThat(tokens.get(store)).as(store).startsWith("kept rising");
    }
  }

  @Test
  @DisplayName(
      "hand-off is measured after warm-up hand-offs, as the benchmark does, and the report says"
          + " so; Redis's p99 is then not dominated by the first hand-off")
  void handoffExcludesWarmUp() {
    assertThat(markdown).contains("30 hand-offs (after 20 warm-up ones, not counted)");
    double p50 = millis(row("hand-off p50").get("redis"));
    double p99 = millis(row("hand-off p99").get("redis"));
    // Before warm-up was excluded the first hand-off (a new pub/sub subscription) made p99
    // 130-370 ms against a p50 near 1 ms. How fast is the benchmarks' business (a loaded CI
    // machine stalls at random); here only that both are measured from the counted samples.
    assertThat(p99).as("redis hand-off p50 %s ms, p99 %s ms", p50, p99).isGreaterThanOrEqualTo(p50);
  }

  @Test
  @DisplayName("compare.html has every store's caveats, as compare.md does")
  void htmlHasCaveats() {
    assertThat(markdown).contains("## Caveats per store");
    for (String store : STORES) {
      Element section = html.getElementById("caveats-" + store);
      assertThat(section).as("caveats of " + store).isNotNull();
      assertThat(section.selectFirst("h3").text()).isEqualTo(store);
      assertThat(section.selectFirst("p").text()).hasSizeGreaterThan(80);
    }
  }

  @Test
  @DisplayName(
      "every chart in compare.html has axis titles and a legend with a line sample per store")
  void chartsHaveAxisTitlesAndLegendSamples() {
    List<Element> charts = html.select("svg.chart");
    assertThat(charts).hasSize(2);
    for (Element chart : charts) {
      assertThat(chart.select("text.axis-title.x").text()).contains("ms");
      assertThat(chart.select("text.axis-title.y").text()).contains("%");
      List<Element> entries = chart.select("g.legend g.entry");
      assertThat(entries.stream().map(e -> e.selectFirst("text").text()))
          .containsExactlyElementsOf(STORES);
      List<String> lineColours = new ArrayList<>();
      chart.select("polyline").forEach(p -> lineColours.add(p.attr("stroke")));
      for (Element e : entries) {
        Element sample = e.selectFirst("line");
        assertThat(sample).isNotNull();
        assertThat(lineColours).contains(sample.attr("stroke"));
      }
      // Scales with the window instead of a fixed 720 px box beside empty space.
      assertThat(chart.attr("viewBox")).isNotEmpty();
      assertThat(chart.parent().parent().hasClass("charts")).isTrue();
    }
  }

  @Test
  @DisplayName(
      "the pause row says which pause each store got: frozen, or stopped by a fixture whose pause"
          + " stops the server (ZooKeeper's, in this JVM), so that calls failed")
  void pauseSaysWhichKind() {
    Map<String, String> pause = row("store paused past the lease");
    for (String store : STORES) {
      assertThat(pause.get(store)).as(store).doesNotContain("n/a", "cannot be paused");
      if (store.equals("zookeeper")) {
        assertThat(pause.get(store))
            .startsWith("store stopped for ")
            .contains("(session 3 s): its fixture pauses by stopping the server, so calls failed");
      } else {
        assertThat(pause.get(store))
            .startsWith("store frozen for ")
            .contains("connections open but unanswered");
      }
    }
  }

  @Test
  @DisplayName(
      "each store's column in compare.html says how it was run; Redis's says appendonly, which"
          + " its DURABLE_FENCING cell follows")
  void htmlSaysHowEachStoreWasRun() {
    for (String store : STORES) {
      Element header = html.getElementById("store-" + store);
      assertThat(header).as(store).isNotNull();
      assertThat(header.selectFirst(".setup .origin").text())
          .as(store)
          .startsWith("started by compare");
    }
    for (String store : List.of("etcd", "h2", "memcached", "redis", "zookeeper")) {
      assertThat(html.getElementById("store-" + store).selectFirst(".setup .server"))
          .as("what %s's server says of itself", store)
          .isNotNull();
    }
    String redis = html.getElementById("store-redis").selectFirst(".server").text();
    assertThat(redis).matches("Redis \\S+, appendonly (yes|no), maxmemory-policy \\S+");
    boolean aof = redis.contains("appendonly yes");
    assertThat(row("DURABLE_FENCING").get("redis")).isEqualTo(aof ? "yes" : "—");
    assertThat(html.getElementById("store-redis").selectFirst(".note").text())
        .contains("DURABLE_FENCING");
    assertThat(row("measured on").get("redis")).startsWith(redis + "; ");
    assertThat(html.getElementById("store-h2").selectFirst(".server").text()).startsWith("H2 ");
  }

  @Test
  @DisplayName("compare.html and compare.md say when and by which Locksmith version they were made")
  void reportsSayDateAndVersion() {
    String version = Locksmith.version();
    assertThat(version).as("filled in by the build").matches("\\d+\\.\\d+\\.\\d+.*");
    String generated = html.selectFirst("p.generated").text();
    // The run began minutes ago: today, or yesterday if it crossed midnight.
    java.time.LocalDate today = java.time.LocalDate.now();
    assertThat(generated)
        .contains("Locksmith " + version)
        .containsAnyOf(today.toString(), today.minusDays(1).toString());
    assertThat(markdown).contains("(Locksmith " + version + ", ");
  }

  @Test
  @DisplayName(
      "memcached's and Redis's long tokens are explained in the cells that show them, and under"
          + " the table")
  void clockTokensExplainedWhereTheyAppear() {
    for (String label : List.of("store killed and restarted", "token after eviction")) {
      assertThat(row(label).get("memcached"))
          .as(label)
          .containsPattern("\\d{19} → \\d{19}: clock-based tokens, ns since 1970");
      assertThat(row(label).get("redis"))
          .as(label)
          .containsPattern("\\d{16} → \\d{16}: clock-based tokens, µs since 1970");
      assertThat(row(label).get("etcd")).as(label).doesNotContain("clock-based");
    }
    assertThat(html.select("div.notes p").eachText())
        .anySatisfy(
            n -> assertThat(n).startsWith("Clock-based tokens: memcached (ns), redis (µs)"));
  }

  @Test
  @DisplayName("every store's chart line has a colour of its own, h2's and zookeeper's far apart")
  void chartColoursDiffer() {
    for (Element chart : html.select("svg.chart")) {
      Map<String, String> colours = new LinkedHashMap<>();
      for (Element e : chart.select("g.legend g.entry")) {
        colours.put(e.selectFirst("text").text(), e.selectFirst("line").attr("stroke"));
      }
      assertThat(colours.keySet()).containsExactlyElementsOf(STORES);
      List<String> names = new ArrayList<>(colours.keySet());
      for (int i = 0; i < names.size(); i++) {
        for (int j = i + 1; j < names.size(); j++) {
          String a = colours.get(names.get(i));
          String b = colours.get(names.get(j));
          assertThat(dev.locksmith.cli.internal.ColourDistance.distinct(a, b))
              .as("%s (%s) and %s (%s)", names.get(i), a, names.get(j), b)
              .isTrue();
        }
      }
    }
  }

  /** The cells of one Markdown table row, by store. */
  private Map<String, String> row(String label) {
    String line =
        markdown
            .lines()
            .filter(l -> l.startsWith("| " + label + " |"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no row '" + label + "' in\n" + markdown));
    List<String> cells = Arrays.asList(line.split(" \\| "));
    Map<String, String> byStore = new LinkedHashMap<>();
    for (int i = 0; i < STORES.size(); i++) {
      byStore.put(STORES.get(i), cells.get(i + 1).replace(" |", "").trim());
    }
    return byStore;
  }

  private static double millis(String cell) {
    return Double.parseDouble(cell.replace(" ms", ""));
  }
}
