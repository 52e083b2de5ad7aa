package dev.locksmith.cli.internal;

import dev.locksmith.Capability;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Writes the comparison: a side-by-side table for the terminal, the same as Markdown, and one
 * self-contained HTML page with latency charts drawn as inline SVG (no scripts, no downloads).
 */
public final class ReportWriter {

  private final List<StoreReport> reports;
  private final String machine;
  private final String version;
  private final ZonedDateTime generated;

  /**
   * A writer for {@code reports}, measured on {@code machine} (cores, Java, sizes), by Locksmith
   * {@code version} at {@code generated}: the pages say all three.
   *
   * @throws NullPointerException if any argument is null, or {@code reports} holds a null
   */
  public ReportWriter(
      List<StoreReport> reports, String machine, String version, ZonedDateTime generated) {
    this.reports = List.copyOf(reports);
    this.machine = java.util.Objects.requireNonNull(machine, "machine must not be null");
    this.version = java.util.Objects.requireNonNull(version, "version must not be null");
    this.generated = java.util.Objects.requireNonNull(generated, "generated must not be null");
  }

  private record Row(String label, Function<StoreReport, String> value) {}

  /** The label of the row that says how each store was run. */
  private static final String SETUP = "measured on";

  /** The label of the row of uncontended acquire+release pairs a second, on one thread. */
  private static final String THROUGHPUT = "acquire+release/s";

  /** The labels of the table's rows, in order. */
  public static List<String> labels() {
    return rows().stream().map(Row::label).toList();
  }

  private static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    rows.add(new Row(SETUP, ReportWriter::setup));
    for (Capability c : Capability.values()) {
      rows.add(new Row(c.name(), r -> r.capabilities.contains(c) ? "yes" : "—"));
    }
    rows.add(new Row("acquire+release p50", r -> ms(r.uncontended, 50)));
    rows.add(new Row("acquire+release p99", r -> ms(r.uncontended, 99)));
    // Short labels: every short row's label fits the label column at 80 columns with six stores
    // (what "1 thread" means is said in a note under the table).
    rows.add(
        new Row(
            THROUGHPUT,
            r ->
                r.uncontended == null
                    ? "—"
                    : String.format(Locale.ROOT, "%,.0f", r.throughputPerSecond)));
    rows.add(new Row("hand-off p50", r -> ms(r.handoff, 50)));
    rows.add(new Row("hand-off p99", r -> ms(r.handoff, 99)));
    rows.add(new Row("crashed holder", r -> r.crash));
    rows.add(new Row("store paused past the lease", r -> r.pause));
    rows.add(new Row("store killed and restarted", r -> r.restart));
    rows.add(new Row("client clock skewed ±10 min", r -> r.clockSkew));
    rows.add(new Row("release after expiry", r -> r.staleRelease));
    rows.add(new Row("left after 1,000 names", r -> r.footprint));
    rows.add(new Row("token after eviction", r -> r.tokenAfterEviction));
    rows.add(
        new Row(
            "broken promises",
            r -> r.brokenPromises.isEmpty() ? "none" : String.join("; ", r.brokenPromises)));
    return rows;
  }

  /**
   * How the store was run, in a line: what its server says of itself (version, the settings its
   * promises depend on, and what they mean), and who started it.
   */
  private static String setup(StoreReport r) {
    List<String> parts = new ArrayList<>();
    if (!r.facts.summary().isEmpty()) {
      parts.add(r.facts.summary());
    }
    if (!r.facts.note().isEmpty()) {
      parts.add(r.facts.note());
    }
    parts.add(origin(r));
    return String.join("; ", parts);
  }

  private static String origin(StoreReport r) {
    if (!r.startedHere) {
      return "a live store given by --uri";
    }
    return r.processes.isEmpty()
        ? "started by compare inside this JVM"
        : "started by compare as a process of its own";
  }

  private static String ms(Percentiles p, double q) {
    return p == null || p.count() == 0 ? "—" : String.format(Locale.ROOT, "%.2f ms", p.millis(q));
  }

  /** The widest column a side-by-side cell gets; wider would only leave gaps. */
  private static final int MAX_CELL = 40;

  /** Below this a side-by-side cell wraps a sentence into a tall thin column: list it instead. */
  private static final int MIN_CELL = 20;

  /**
   * The table for a terminal {@code width} columns wide; no line is longer than {@code width}, and
   * no row label is broken inside a word. Wide enough, one column per store with long cells
   * wrapped. Narrower, the short rows (capabilities, numbers) stay a table with one narrow column
   * per store, and each long row (what a crashed holder, a pause or a restart did) is listed store
   * by store beneath it.
   */
  public String text(int width) {
    List<Row> rows = rows();
    int n = Math.max(1, reports.size());
    int labelWidth = rows.stream().mapToInt(r -> r.label().length()).max().orElse(10);
    int cell = Math.min(MAX_CELL, (width - labelWidth - 3 * n) / n);
    if (cell >= MIN_CELL) {
      return sideBySide(rows, labelWidth, cell);
    }
    return narrow(rows, width);
  }

  private String sideBySide(List<Row> rows, int labelWidth, int cell) {
    StringBuilder sb = new StringBuilder();
    StringBuilder header = new StringBuilder(pad("", labelWidth));
    for (StoreReport r : reports) {
      header.append(" | ").append(pad(r.name, cell));
    }
    line(sb, header);
    sb.append("-".repeat(labelWidth + reports.size() * (cell + 3))).append('\n');
    for (Row row : rows) {
      List<List<String>> cells =
          reports.stream().map(r -> wrap(row.value().apply(r), cell)).collect(Collectors.toList());
      int lines = cells.stream().mapToInt(List::size).max().orElse(1);
      for (int i = 0; i < lines; i++) {
        StringBuilder l = new StringBuilder(pad(i == 0 ? row.label() : "", labelWidth));
        for (List<String> c : cells) {
          l.append(" | ").append(pad(i < c.size() ? c.get(i) : "", cell));
        }
        line(sb, l);
      }
    }
    return sb.toString();
  }

  private String narrow(List<Row> rows, int width) {
    int nameWidth =
        Math.min(width / 3, reports.stream().mapToInt(r -> r.name.length()).max().orElse(4));
    // A row is short when every store's value fits a column as wide as the widest store name
    // or number (at least 9, so "12,345.67" and "123.45 ms" fit).
    int cell = Math.max(9, nameWidth);
    List<Row> shortRows = new ArrayList<>();
    List<Row> longRows = new ArrayList<>();
    for (Row row : rows) {
      boolean fits = reports.stream().allMatch(r -> row.value().apply(r).length() <= cell);
      (fits ? shortRows : longRows).add(row);
    }
    // The label column is at least as wide as the longest word of a short row's label, so that
    // labels wrap at spaces only; two spaces between columns where that fits, else one.
    int longestWord =
        shortRows.stream()
            .flatMap(r -> List.of(r.label().split(" ")).stream())
            .mapToInt(String::length)
            .max()
            .orElse(0);
    int longestLabel = shortRows.stream().mapToInt(r -> r.label().length()).max().orElse(0);
    int gap = 0;
    int labelWidth = 0;
    for (int g = 2; g >= 1 && gap == 0; g--) {
      int room = width - reports.size() * (cell + g);
      if (room >= longestWord) {
        gap = g;
        labelWidth = Math.min(longestLabel, room);
      }
    }
    StringBuilder sb = new StringBuilder();
    if (gap > 0 && !shortRows.isEmpty()) {
      String between = " ".repeat(gap);
      StringBuilder header = new StringBuilder(pad("", labelWidth));
      for (StoreReport r : reports) {
        header.append(between).append(pad(r.name, cell));
      }
      line(sb, header);
      sb.append("-".repeat(labelWidth + reports.size() * (cell + gap))).append('\n');
      for (Row row : shortRows) {
        List<String> label = wrapWords(row.label(), labelWidth);
        for (int i = 0; i < label.size(); i++) {
          StringBuilder l = new StringBuilder(pad(label.get(i), labelWidth));
          if (i == label.size() - 1) {
            for (StoreReport r : reports) {
              l.append(between).append(pad(row.value().apply(r), cell));
            }
          }
          line(sb, l);
        }
      }
      sb.append('\n');
    } else {
      longRows = rows;
    }
    // Each long row as a list: the store's name, then its value wrapped beside it.
    int valueWidth = width - 2 - nameWidth - 2;
    for (Row row : longRows) {
      for (String l : wrapWords(row.label() + ":", width)) {
        line(sb, new StringBuilder(l));
      }
      for (StoreReport r : reports) {
        List<String> name = wrap(r.name, nameWidth);
        List<String> value = wrap(row.value().apply(r), valueWidth);
        for (int i = 0; i < Math.max(name.size(), value.size()); i++) {
          StringBuilder l = new StringBuilder("  ");
          l.append(pad(i < name.size() ? name.get(i) : "", nameWidth)).append("  ");
          l.append(i < value.size() ? value.get(i) : "");
          line(sb, l);
        }
      }
    }
    return sb.toString();
  }

  /**
   * Appends {@code l} without the padding at its end (which would wrap a terminal just as text).
   */
  private static void line(StringBuilder sb, StringBuilder l) {
    int end = l.length();
    while (end > 0 && l.charAt(end - 1) == ' ') {
      end--;
    }
    sb.append(l, 0, end).append('\n');
  }

  /** When and by what the report was made: the date, the time and Locksmith's version. */
  private String generatedBy() {
    return "Locksmith "
        + version
        + ", "
        + generated.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z", Locale.ROOT));
  }

  /**
   * Notes on what the table shows, each only when a cell needs it: what capabilities depend on, and
   * what clock-based fencing tokens are.
   */
  private List<String> notes() {
    List<String> notes = new ArrayList<>();
    notes.add(
        "Capabilities are what each store declared on connecting to the server it was measured"
            + " on, configured as its \"measured on\" row says: some depend on the server's"
            + " settings.");
    notes.add(
        THROUGHPUT
            + ": one thread acquiring and releasing one free lock after another, the p50 and p99"
            + " rows' samples in a row; what a single caller gets, not what the store can serve.");
    List<String> clocked = new ArrayList<>();
    for (StoreReport r : reports) {
      String cells = r.restart + " " + r.tokenAfterEviction;
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("clock-based tokens, (\\S+) since 1970").matcher(cells);
      if (m.find()) {
        clocked.add(r.name + " (" + m.group(1) + ")");
      }
    }
    if (!clocked.isEmpty()) {
      notes.add(
          "Clock-based tokens: "
              + String.join(", ", clocked)
              + " draw fencing tokens above a reading of the clock (microseconds or nanoseconds"
              + " since 1970) instead of counting from 1, hence 16 or 19 digits: a token counter"
              + " lost to eviction, a flush or a restart starts again above every token given"
              + " before, as long as the clock does not go back. Only their order matters.");
    }
    return notes;
  }

  /** The table as Markdown, with a header that says where, when and by what it was measured. */
  public String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("# Locksmith: the stores compared\n\n")
        .append("Generated by `./locksmith compare` (")
        .append(generatedBy())
        .append("; the same scenarios on every store, see")
        .append(" `./locksmith compare --help`). Latencies depend on the machine; the behaviour")
        .append(" rows do not.\n\n");
    sb.append("| |");
    reports.forEach(r -> sb.append(' ').append(r.name).append(" |"));
    sb.append("\n|---|");
    reports.forEach(r -> sb.append("---|"));
    sb.append('\n');
    for (Row row : rows()) {
      sb.append("| ").append(row.label()).append(" |");
      for (StoreReport r : reports) {
        sb.append(' ').append(row.value().apply(r).replace("|", "\\|")).append(" |");
      }
      sb.append('\n');
    }
    sb.append('\n');
    for (String note : notes()) {
      sb.append(note).append("\n\n");
    }
    sb.append("Measured on: ").append(machine).append('\n');
    sb.append("\n## How each store was run\n\n");
    for (StoreReport r : reports) {
      sb.append("- **").append(r.name).append("**: ").append(setup(r));
      sb.append("; URI `").append(r.uri).append('`');
      for (String p : r.processes) {
        sb.append("; process `").append(p).append('`');
      }
      sb.append('\n');
    }
    String caveats = caveats();
    if (!caveats.isEmpty()) {
      sb.append("\n## Caveats per store\n\n").append(caveats);
    }
    return sb.toString();
  }

  /**
   * One self-contained HTML page: the table (each store's column headed by how it was run), a
   * latency chart per scenario (side by side where the window is wide enough) and the same
   * per-store caveats as the Markdown.
   */
  public String html() {
    StringBuilder sb = new StringBuilder();
    sb.append("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>Locksmith: stores compared</title><style>")
        .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1600px}")
        .append("table{border-collapse:collapse;font-size:14px;width:100%}")
        .append("td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}")
        .append("th{background:#f3f3f3}")
        .append(".setup{font-weight:normal;font-size:12px;text-align:left;margin-top:.3em}")
        .append(".setup p{margin:.2em 0}.setup summary{cursor:pointer}")
        .append(".notes{font-size:14px}")
        // Two charts side by side on a wide window, one under the other on a narrow one.
        .append(".charts{display:grid;gap:1.5em;")
        .append("grid-template-columns:repeat(auto-fit,minmax(420px,1fr))}")
        .append("figure{margin:0}figcaption{font-weight:600;margin:1em 0 .5em}")
        .append("svg.chart{width:100%;height:auto}")
        .append(".caveats{columns:2 420px;column-gap:2em}")
        .append(".caveat{break-inside:avoid}code{background:#f3f3f3;padding:0 2px}")
        .append("</style></head><body>")
        .append("<h1>Locksmith: the stores compared</h1>")
        .append("<p class=\"generated\">Generated by <code>./locksmith compare</code>: ")
        .append(esc(generatedBy()))
        .append(".</p><p class=\"machine\">")
        .append(esc(machine))
        .append("</p><table><tr><th></th>");
    reports.forEach(r -> sb.append(headerCell(r)));
    sb.append("</tr>");
    for (Row row : rows()) {
      if (row.label().equals(SETUP)) {
        continue; // In each column's header instead.
      }
      sb.append("<tr><th style=\"text-align:left\">").append(esc(row.label())).append("</th>");
      reports.forEach(r -> sb.append("<td>").append(esc(row.value().apply(r))).append("</td>"));
      sb.append("</tr>");
    }
    sb.append("</table><div class=\"notes\">");
    notes().forEach(n -> sb.append("<p>").append(esc(n)).append("</p>"));
    sb.append("</div><h2>Latency</h2><div class=\"charts\">");
    sb.append("<figure><figcaption>Uncontended acquire+release (cumulative distribution)")
        .append("</figcaption>")
        .append(cdf(r -> r.uncontended))
        .append("</figure>");
    sb.append("<figure><figcaption>Hand-off: release to the next waiter's acquire (cumulative")
        .append(" distribution)</figcaption>")
        .append(cdf(r -> r.handoff))
        .append("</figure></div>");
    sb.append(caveatsHtml());
    sb.append("</body></html>\n");
    return sb.toString();
  }

  /**
   * A store's column header: its name, then how it was measured: what its server says of itself and
   * what that means, who started it, its URI and the processes started for it.
   */
  private static String headerCell(StoreReport r) {
    StringBuilder sb = new StringBuilder("<th id=\"store-").append(esc(r.name)).append("\">");
    sb.append(esc(r.name)).append("<div class=\"setup\">");
    if (!r.facts.summary().isEmpty()) {
      sb.append("<p class=\"server\">").append(esc(r.facts.summary())).append("</p>");
    }
    if (!r.facts.note().isEmpty()) {
      sb.append("<p class=\"note\">").append(esc(r.facts.note())).append("</p>");
    }
    sb.append("<p class=\"origin\">").append(esc(origin(r))).append("</p>");
    sb.append("<details><summary>URI")
        .append(r.processes.isEmpty() ? "" : " and command line")
        .append("</summary><p><code>")
        .append(esc(r.uri))
        .append("</code></p>");
    for (String p : r.processes) {
      sb.append("<p><code>").append(esc(p)).append("</code></p>");
    }
    return sb.append("</details></div></th>").toString();
  }

  /** The caveats of the compared stores as HTML: one section per store, inline code kept. */
  private String caveatsHtml() {
    String md = caveats();
    if (md.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("<h2>Caveats per store</h2><div class=\"caveats\">");
    for (String section : md.split("(?m)^### ")) {
      int nl = section.indexOf('\n');
      if (nl < 0) {
        continue;
      }
      String store = section.substring(0, nl).trim();
      String text = section.substring(nl + 1).strip().replaceAll("\\s+", " ");
      sb.append("<section class=\"caveat\" id=\"caveats-")
          .append(esc(store))
          .append("\"><h3>")
          .append(esc(store))
          .append("</h3><p>")
          .append(esc(text).replaceAll("`([^`]+)`", "<code>$1</code>"))
          .append("</p></section>");
    }
    return sb.append("</div>").toString();
  }

  /**
   * Line colours, store by store: chromatic ones at least 30° of hue apart (the Okabe-Ito set where
   * it has them, readable by the colour-blind), the two greys far apart in lightness, so that no
   * two stores look alike; every other store's line is dashed as well, which also tells them apart
   * without colour.
   */
  static final String[] COLOURS = {
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#999933", "#222222", "#6a3d9a", "#999999"
  };

  /** The dash pattern of the {@code i}th store's line: none, or dashes for every other store. */
  private static String dashes(int i) {
    return i % 2 == 0 ? "" : " stroke-dasharray=\"6 3\"";
  }

  /** A cumulative distribution per store on a log-scaled millisecond axis, as SVG. */
  private String cdf(Function<StoreReport, Percentiles> which) {
    int w = 640;
    int h = 340;
    int left = 64;
    int bottom = 56;
    int legendWidth = 130;
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (StoreReport r : reports) {
      Percentiles p = which.apply(r);
      if (p != null && p.count() > 0) {
        lo = Math.min(lo, Math.max(1e-3, p.millis(0)));
        hi = Math.max(hi, p.millis(100));
      }
    }
    if (hi == 0) {
      return "<p>(no samples)</p>";
    }
    double logLo = Math.floor(Math.log10(lo));
    double logHi = Math.ceil(Math.log10(Math.max(hi, lo * 10)));
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\""
                + " xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">",
            w,
            h,
            w,
            h));
    int plotW = w - left - legendWidth - 10;
    int plotH = h - bottom - 10;
    sb.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"10\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>",
            left,
            plotW,
            plotH));
    for (double d = logLo; d <= logHi; d++) {
      double x = left + (d - logLo) / (logHi - logLo) * plotW;
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>",
              x,
              x,
              10 + plotH));
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>",
              x,
              10 + plotH + 16,
              fmt(Math.pow(10, d))));
    }
    for (int q = 0; q <= 100; q += 25) {
      double y = 10 + plotH - q / 100.0 * plotH;
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%d%%</text>",
              left - 4,
              y + 4,
              q));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "<text class=\"axis-title x\" x=\"%d\" y=\"%d\" font-size=\"12\""
                + " text-anchor=\"middle\">latency, ms (log scale)</text>",
            left + plotW / 2,
            h - 12));
    sb.append(
        String.format(
            Locale.ROOT,
            "<text class=\"axis-title y\" x=\"0\" y=\"0\" font-size=\"12\""
                + " text-anchor=\"middle\" transform=\"translate(16 %d) rotate(-90)\">"
                + "samples at or below (%%)</text>",
            10 + plotH / 2));
    sb.append("<g class=\"legend\">");
    int i = 0;
    StringBuilder lines = new StringBuilder();
    for (StoreReport r : reports) {
      Percentiles p = which.apply(r);
      String colour = COLOURS[i % COLOURS.length];
      if (p != null && p.count() > 0) {
        long[] s = p.sorted();
        StringBuilder pts = new StringBuilder();
        for (int k = 0; k < s.length; k++) {
          double ms = Math.max(Math.pow(10, logLo), s[k] / 1e6);
          double x = left + (Math.log10(ms) - logLo) / (logHi - logLo) * plotW;
          double y = 10 + plotH - (k + 1.0) / s.length * plotH;
          pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        lines
            .append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"")
            .append(colour)
            .append('"')
            .append(dashes(i))
            .append(" points=\"")
            .append(pts)
            .append("\"/>");
      }
      int y = 24 + i * 20;
      int x = left + plotW + 12;
      // The sample is drawn like the line it stands for, so the colour is matched by eye.
      sb.append(
          String.format(
              Locale.ROOT,
              "<g class=\"entry\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
                  + " stroke=\"%s\" stroke-width=\"2\"%s/>"
                  + "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text></g>",
              x,
              y - 4,
              x + 24,
              y - 4,
              colour,
              dashes(i),
              x + 30,
              y,
              esc(r.name)));
      i++;
    }
    sb.append("</g>").append(lines).append("</svg>");
    return sb.toString();
  }

  private static String fmt(double v) {
    return v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%s", v);
  }

  /**
   * The caveats of the stores in this comparison: each store's module ships its own, as the
   * resource {@code META-INF/locksmith/caveats/NAME.md} (in its fixtures jar), so a store added
   * from outside brings its caveats along. A store without one is listed as saying nothing.
   */
  private String caveats() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    StringBuilder sb = new StringBuilder();
    for (StoreReport r : reports) {
      String text = null;
      try (var in = loader.getResourceAsStream("META-INF/locksmith/caveats/" + r.name + ".md")) {
        if (in != null) {
          text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
      } catch (IOException e) {
        text = null;
      }
      if (text != null && !text.isEmpty()) {
        sb.append("### ").append(r.name).append('\n').append(text).append("\n\n");
      }
    }
    return sb.toString();
  }

  /** Writes {@code compare.md} and {@code compare.html} into {@code dir}. */
  public void writeFiles(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("compare.md"), markdown(), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("compare.html"), html(), StandardCharsets.UTF_8);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : s + " ".repeat(width - s.length());
  }

  /** {@code s} in lines of at most {@code width}, broken at spaces, or inside a longer word. */
  private static List<String> wrap(String s, int width) {
    List<String> words = new ArrayList<>();
    for (String word : s.split(" ")) {
      while (word.length() > width) {
        words.add(word.substring(0, width));
        word = word.substring(width);
      }
      words.add(word);
    }
    return fill(words, width);
  }

  /**
   * {@code s} in lines of at most {@code width}, broken at spaces only: for labels, which are never
   * broken inside a word (a word longer than {@code width} overflows its line instead).
   */
  private static List<String> wrapWords(String s, int width) {
    return fill(List.of(s.split(" ")), width);
  }

  private static List<String> fill(List<String> words, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : words) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    lines.add(line.toString());
    return lines;
  }
}
