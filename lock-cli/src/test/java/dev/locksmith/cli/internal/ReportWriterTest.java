package dev.locksmith.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How the report is laid out, on reports of the shape a comparison makes: the printed table at a
 * terminal's width and what the HTML page says about each store. The scenarios themselves run
 * against real servers in {@code CompareFirstRunTest}; here the cells are written by hand so that
 * every width and every store count can be tried, and no cell repeats a word of a row's label.
 */
class ReportWriterTest {

  private static final ZonedDateTime GENERATED =
      ZonedDateTime.of(2026, 11, 28, 14, 5, 0, 0, ZoneId.of("UTC"));

  /** Six stores, as {@code compare} with no arguments finds here, with cells of realistic size. */
  private static List<StoreReport> reports(int count) {
    List<String> names =
        List.of("etcd", "h2", "mem", "memcached", "redis", "zookeeper", "postgres", "file");
    List<StoreReport> reports = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      StoreReport r = new StoreReport(names.get(i), names.get(i) + "://127.0.0.1:4000" + i);
      r.capabilities = EnumSet.of(Capability.FENCING, Capability.REENTRANCY);
      long[] samples = new long[100];
      Arrays.fill(samples, 1_234_567L * (i + 1));
      r.uncontended = new Percentiles(samples);
      r.handoff = new Percentiles(samples);
      r.throughputPerSecond = 296_671.0 / (i + 1);
      r.startedHere = true;
      r.processes = List.of("server --port 4000" + i + " --data-dir /tmp/x");
      r.facts = new ServerFacts.Facts("Server 1.2." + i + ", persistence yes", "");
      r.crash = "lorem ipsum dolor sit amet, consectetur adipiscing elit: 2.0 s (3 s)";
      r.pause = "sed do eiusmod tempor incididunt ut labore et dolore magna aliqua";
      r.restart = "ut enim ad minim veniam (1795893726132257611 → 1795893746036445535)";
      r.clockSkew = "no effect (quis nostrud exercitation)";
      r.staleRelease = "refused (LeaseLostException); ullamco laboris nisi";
      r.footprint = "0 entries (aliquip ex ea commodo: 4)";
      r.tokenAfterEviction = "duis aute irure (7098 → 7100)";
      reports.add(r);
    }
    return reports;
  }

  private static ReportWriter writer(List<StoreReport> reports) {
    return new ReportWriter(reports, "2 cores, Java 17", "9.9.9-TEST", GENERATED);
  }

  /** Every word of the printed text, with the colon a listed row's label ends in taken off. */
  private static Set<String> words(String text) {
    Set<String> words = new HashSet<>();
    for (String w : text.split("\\s+")) {
      words.add(w.endsWith(":") ? w.substring(0, w.length() - 1) : w);
    }
    return words;
  }

  @Test
  @DisplayName(
      "at 80 columns with six stores no line is longer than 80 and every word of every row label"
          + " is printed whole")
  void eightyColumnsKeepLabelWordsWhole() {
    String text = writer(reports(6)).text(80);
    assertThat(text.lines().filter(l -> l.codePointCount(0, l.length()) > 80)).as(text).isEmpty();
    Set<String> printed = words(text);
    List<String> labels = ReportWriter.labels();
    assertThat(labels).contains("DURABLE_FENCING", "acquire+release/s", "measured on");
    for (String label : labels) {
      assertThat(printed).as("the words of '%s' in%n%s", label, text).contains(label.split(" "));
    }
  }

  @Test
  @DisplayName(
      "at 80 columns with six stores every short row (capabilities, latencies, throughput) is one"
          + " line: its label fits the label column")
  void eightyColumnsShortRowsOnOneLine() {
    String text = writer(reports(6)).text(80);
    for (String label :
        List.of(
            "DURABLE_FENCING",
            "WAKE_ON_RELEASE",
            "acquire+release p50",
            "acquire+release/s",
            "hand-off p99",
            "broken promises")) {
      assertThat(text.lines().filter(l -> l.startsWith(label + " ")).toList())
          .as("the row '%s' in%n%s", label, text)
          .hasSize(1);
    }
  }

  @Test
  @DisplayName(
      "at every width from 40 to 200 and for 1 to 8 stores no line is longer than the width and"
          + " no label word is broken")
  void everyWidthAndStoreCount() {
    for (int stores = 1; stores <= 8; stores++) {
      for (int width = 40; width <= 200; width += 4) {
        String text = writer(reports(stores)).text(width);
        int w = width;
        assertThat(text.lines().filter(l -> l.codePointCount(0, l.length()) > w))
            .as("%d stores at %d columns:%n%s", stores, width, text)
            .isEmpty();
        Set<String> printed = words(text);
        for (String label : ReportWriter.labels()) {
          assertThat(printed)
              .as("'%s' with %d stores at %d columns:%n%s", label, stores, width, text)
              .contains(label.split(" "));
        }
      }
    }
  }

  @Test
  @DisplayName(
      "the HTML page heads each store's column with how it was measured, and says the date and"
          + " the Locksmith version")
  void htmlSaysHowWhenAndByWhat() {
    List<StoreReport> reports = reports(6);
    StoreReport redis = reports.get(4);
    redis.facts =
        new ServerFacts.Facts(
            "Redis 7.0.15, appendonly yes, maxmemory-policy noeviction",
            "appendonly yes is why DURABLE_FENCING shows");
    StoreReport mem = reports.get(2);
    mem.processes = List.of();
    mem.facts = ServerFacts.Facts.NONE;
    reports.get(5).startedHere = false;
    Document html = Jsoup.parse(writer(reports).html());

    assertThat(html.selectFirst("p.generated").text())
        .contains("Locksmith 9.9.9-TEST", "2026-11-28 14:05");
    for (StoreReport r : reports) {
      Element header = html.getElementById("store-" + r.name);
      assertThat(header).as(r.name).isNotNull();
      assertThat(header.selectFirst(".setup .origin")).as(r.name).isNotNull();
      assertThat(header.select(".setup details code").eachText()).as(r.name).contains(r.uri);
    }
    Element redisHeader = html.getElementById("store-redis");
    assertThat(redisHeader.selectFirst(".server").text()).isEqualTo(redis.facts.summary());
    assertThat(redisHeader.selectFirst(".note").text()).contains("DURABLE_FENCING");
    assertThat(redisHeader.select(".setup details code").eachText())
        .contains("server --port 40004 --data-dir /tmp/x");
    assertThat(html.getElementById("store-mem").selectFirst(".origin").text())
        .isEqualTo("started by compare inside this JVM");
    assertThat(html.getElementById("store-mem").selectFirst(".server")).isNull();
    assertThat(html.getElementById("store-zookeeper").selectFirst(".origin").text())
        .isEqualTo("a live store given by --uri");
    assertThat(html.getElementById("store-etcd").selectFirst(".origin").text())
        .isEqualTo("started by compare as a process of its own");
  }

  @Test
  @DisplayName(
      "the Markdown says the date and version, has a 'measured on' row per store and explains"
          + " clock-based tokens where a cell shows them")
  void markdownSaysHowWhenAndByWhat() {
    List<StoreReport> reports = reports(4);
    long nanos = System.currentTimeMillis() * 1_000_000L;
    reports.get(3).restart = "token kept increasing (" + ClockTokens.pair(nanos, nanos + 7) + ")";
    String md = writer(reports).markdown();
    assertThat(md).contains("Locksmith 9.9.9-TEST, 2026-11-28 14:05 UTC");
    assertThat(md)
        .containsPattern(
            "\\| measured on \\| Server 1\\.2\\.0, persistence yes; started by compare");
    assertThat(md).contains(": clock-based tokens, ns since 1970)");
    assertThat(md).contains("Clock-based tokens: memcached (ns)");
    assertThat(writer(reports(4)).markdown()).doesNotContain("Clock-based tokens");
  }

  @Test
  @DisplayName(
      "tokens drawn from the clock are recognised in ns, µs and ms since 1970; a counter is not")
  void clockTokens() {
    long now = 1_795_893_726_000L;
    assertThat(ClockTokens.clockUnit(1_795_893_726_132_257_611L, now)).isEqualTo("ns");
    assertThat(ClockTokens.clockUnit(1_795_893_760_380_030L, now)).isEqualTo("µs");
    assertThat(ClockTokens.clockUnit(1_795_893_760_380L, now)).isEqualTo("ms");
    assertThat(ClockTokens.clockUnit(10_186L, now)).isNull();
    assertThat(ClockTokens.pair(7106, 7108)).isEqualTo("7106 → 7108");
  }

  @Test
  @DisplayName(
      "the chart colours of up to eight stores are far apart: chromatic ones at least 30° of hue,"
          + " grey ones far apart in lightness")
  void chartColoursAreDistinct() {
    List<String> colours = List.of(ReportWriter.COLOURS);
    assertThat(colours).hasSize(8).doesNotHaveDuplicates();
    for (int i = 0; i < colours.size(); i++) {
      for (int j = i + 1; j < colours.size(); j++) {
        assertThat(ColourDistance.distinct(colours.get(i), colours.get(j)))
            .as("%s and %s", colours.get(i), colours.get(j))
            .isTrue();
      }
    }
    // The colours h2 and zookeeper had before (red and brown, 11° of hue apart).
    assertThat(ColourDistance.distinct("#d62728", "#8c564b")).isFalse();
  }
}
