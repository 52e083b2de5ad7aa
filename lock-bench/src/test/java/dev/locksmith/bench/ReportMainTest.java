package dev.locksmith.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportMainTest {

  @TempDir Path results;

  private static String jmhRun(String method, String target, double... iterations) {
    StringBuilder raw = new StringBuilder("[[");
    for (int i = 0; i < iterations.length; i++) {
      raw.append(i == 0 ? "" : ",").append(iterations[i]);
    }
    raw.append("]]");
    return "{\"benchmark\":\"dev.locksmith.bench.AcquireReleaseBenchmark."
        + method
        + "\",\"params\":{\"target\":\""
        + target
        + "\"},\"primaryMetric\":{\"score\":0,\"rawData\":"
        + raw
        + "},\"secondaryMetrics\":{\"gc.alloc.rate.norm\":{\"score\":1234.5}}}";
  }

  /** Writes JMH's JSON result file: an array of {@code runs}. */
  private static void writeJmh(Path file, String... runs) throws IOException {
    Files.writeString(file, "[" + String.join(",", runs) + "]");
  }

  @Test
  @DisplayName("ratios are medians of iterations, marked MET or MISSED against the goal")
  void ratiosAndMarks() throws IOException {
    writeJmh(
        results.resolve("jmh.json"),
        jmhRun("oneThread", "redis/locksmith", 900, 1000, 1100),
        jmhRun("oneThread", "redis/raw", 1000, 1000, 1000),
        jmhRun("oneThread", "redis/raw-fenced", 1200, 1200, 1200),
        jmhRun("oneThread", "redis/redisson", 500, 800, 900),
        jmhRun("oneThread", "h2/locksmith", 25000, 26000, 27000));
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains(
            "Redis: Locksmith ≥ 0.9× the raw pair (SET NX PX + EVAL), 1 thread | 1.00× [0.90–1.10] | MET")
        .contains(
            "Redis, the same work (fencing token, reentrant hold) on bare Lettuce: Locksmith ≥ 0.9×"
                + " raw-fenced, 1 thread | 0.83× [0.75–0.92] | **MISSED**")
        .contains(
            "Redis: Locksmith ≥ 1.4× Redisson RLock, 1 thread | 1.25× [1.00–2.20]; raw bound 1.50×"
                + " | **MISSED** |")
        .contains(
            "H2 in-memory, 1 thread: Locksmith ≥ 20,000 acquire+release/s | 26,000 ops/s | MET")
        .contains("| redis/raw | 1,000 [1,000–1,000] | 1.00× [0.90–1.10] |")
        .contains("1,235");
  }

  @Test
  @DisplayName(
      "a peer goal that the store's raw client misses too is marked beyond the raw bound, in each"
          + " run and across runs")
  void beyondTheRawBound(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
    List<Path> runs = new java.util.ArrayList<>();
    // Raw ÷ Redisson: 1.2, 1.2, 1.6; Locksmith ÷ Redisson: 1.1, 1.1, 1.3.
    int[] redisson = {1000, 1000, 1000};
    int[] raw = {1200, 1200, 1600};
    int[] mine = {1100, 1100, 1300};
    for (int r = 0; r < 3; r++) {
      Path run = Files.createDirectories(dir.resolve("run-" + (r + 1)));
      writeJmh(
          run.resolve("jmh.json"),
          jmhRun("oneThread", "redis/locksmith", mine[r], mine[r], mine[r]),
          jmhRun("oneThread", "redis/raw", raw[r], raw[r], raw[r]),
          jmhRun("oneThread", "redis/raw-fenced", raw[r] - 100, raw[r] - 100, raw[r] - 100),
          jmhRun("oneThread", "redis/redisson", redisson[r], redisson[r], redisson[r]));
      runs.add(run);
    }
    assertThat(ReportMain.render(runs.get(0), "quick"))
        .contains(
            "| Redis: Locksmith ≥ 1.4× Redisson RLock, 1 thread | 1.10× [1.10–1.10]; raw bound"
                + " 1.20×, same work 1.10× | **MISSED**, beyond the raw bound |");
    assertThat(ReportMain.render(runs, "quick"))
        .contains("| **MISSED** (met in 0 of 3; beyond the raw bound in 2 of 3) |")
        .contains("raw bound: the store's fastest raw target ÷ that peer in the same run");
  }

  @Test
  @DisplayName(
      "a JDBC peer goal shows the same work's bound beside the raw one, and Locksmith is measured"
          + " against the same work on bare JDBC")
  void jdbcSameWork() throws IOException {
    writeJmh(
        results.resolve("jmh.json"),
        jmhRun("oneThread", "h2/locksmith", 1300, 1300, 1300),
        jmhRun("oneThread", "h2/raw", 2000, 2000, 2000),
        jmhRun("oneThread", "h2/raw-fenced", 1600, 1600, 1600),
        jmhRun("oneThread", "h2/spring", 1000, 1000, 1000),
        jmhRun("oneThread", "h2/shedlock", 900, 900, 900));
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains(
            "| H2: Locksmith ≥ 1.5× the better of Spring Integration and ShedLock, 1 thread |"
                + " 1.30× [1.30–1.30] (vs spring); raw bound 2.00×, same work 1.60× | **MISSED** |")
        .contains(
            "| H2, the same work (fencing token, reentrant hold) on bare JDBC: Locksmith ≥ 0.9×"
                + " raw-fenced, 1 thread | 0.81× [0.81–0.81] | **MISSED** |")
        .contains(
            "PostgreSQL, the same work (fencing token, reentrant hold) on bare JDBC: Locksmith ≥"
                + " 0.9× raw-fenced, 1 thread | — | NOT RUN |")
        .contains("- `h2/raw-fenced`: the same work as Locksmith's JDBC store on bare JDBC");
  }

  @Test
  @DisplayName(
      "a store found through its fixture (no targets of its own) gets its row in the throughput"
          + " table, after the built-in stores")
  void fixtureStoreHasItsRow() throws IOException {
    writeJmh(
        results.resolve("jmh.json"),
        jmhRun("oneThread", "redis/locksmith", 900, 1000, 1100),
        jmhRun("oneThread", "etcd/locksmith", 400, 500, 600));
    String md = ReportMain.render(results, "quick");
    assertThat(md).contains("| etcd/locksmith | 500");
    assertThat(md.indexOf("| etcd/locksmith")).isGreaterThan(md.indexOf("| redis/locksmith"));
  }

  @Test
  @DisplayName(
      "a target measured in two passes gets its median over the iterations of both forks, so a"
          + " slow fork and a fast one meet in the middle")
  void passesAreMerged() throws IOException {
    writeJmh(
        results.resolve("jmh-1.json"),
        jmhRun("oneThread", "redis/locksmith", 800, 800, 800),
        jmhRun("oneThread", "redis/raw-fenced", 1000, 1000, 1000));
    writeJmh(
        results.resolve("jmh-2.json"),
        jmhRun("oneThread", "redis/locksmith", 1200, 1200, 1200),
        jmhRun("oneThread", "redis/raw-fenced", 1000, 1000, 1000));
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains("| redis/locksmith | 1,000 [800–1,200] |")
        .contains(
            "Redis, the same work (fencing token, reentrant hold) on bare Lettuce: Locksmith ≥ 0.9×"
                + " raw-fenced, 1 thread | 1.00× [0.80–1.20] | MET");
  }

  /** One {@link PairedBenchmark} result: {@code forks} are each fork's iterations in order. */
  /** Writes {@code runs} (see {@link #pairedRun}) as {@code paired.json} in {@code dir}. */
  private static void writePaired(Path dir, String... runs) throws IOException {
    Files.writeString(dir.resolve("paired.json"), "[" + String.join(",", runs) + "]");
  }

  private static String pairedRun(String method, String pair, double[]... forks) {
    StringBuilder raw = new StringBuilder("[");
    for (int f = 0; f < forks.length; f++) {
      raw.append(f == 0 ? "[" : ",[");
      for (int i = 0; i < forks[f].length; i++) {
        raw.append(i == 0 ? "" : ",").append(forks[f][i]);
      }
      raw.append(']');
    }
    raw.append(']');
    return "{\"benchmark\":\"dev.locksmith.bench.PairedBenchmark."
        + method
        + "\",\"params\":{\"pair\":\""
        + pair
        + "\"},\"primaryMetric\":{\"score\":0,\"rawData\":"
        + raw
        + "}}";
  }

  @Test
  @DisplayName(
      "a paired goal takes one ratio per turn of four iterations (first, second, second, first)"
          + " over every fork, and their median")
  void pairedTurns() throws IOException {
    writePaired(
        results,
        pairedRun(
            "oneThread",
            "h2/locksmith:h2/raw-fenced",
            // Turns of 1.00, 0.90 and 0.85; the last two iterations are no whole turn.
            new double[] {
              900, 1000, 1000, 1100, 800, 1000, 1000, 1000, 850, 1000, 1000, 850, 5000, 1
            }),
        pairedRun(
            "sixteenThreads",
            "redis/locksmith:redis/raw-fenced",
            new double[] {1000, 1250, 1250, 1000},
            new double[] {800, 1000, 1000, 800}));
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains(
            "| H2, the same work (fencing token, reentrant hold) on bare JDBC: Locksmith ≥ 0.9×"
                + " raw-fenced, 1 thread | 0.90× [0.85–1.00] over 3 turns; separate forks not run |"
                + " MET |")
        .contains(
            "| Redis, the same work (fencing token, reentrant hold) on bare Lettuce: Locksmith ≥"
                + " 0.9× raw-fenced, 16 threads | 0.80× [0.80–0.80] over 2 turns; separate forks"
                + " not run | **MISSED** |")
        .contains(
            "| PostgreSQL, the same work (fencing token, reentrant hold) on bare JDBC: Locksmith"
                + " ≥ 0.9× raw-fenced, 1 thread | — (not paired); separate forks not run | NOT RUN"
                + " |");
  }

  @Test
  @DisplayName(
      "a paired peer goal is judged against the better peer (the smaller ratio), with its raw"
          + " bound read off the pairs that share Locksmith; a method without pairs adds no rows")
  void pairedPeerGoals() throws IOException {
    writePaired(
        results,
        pairedRun("oneThread", "h2/locksmith:h2/spring", new double[] {1500, 1000, 1000, 1500}),
        pairedRun("oneThread", "h2/locksmith:h2/shedlock", new double[] {1300, 1000, 1000, 1300}),
        pairedRun("oneThread", "h2/locksmith:h2/raw-fenced", new double[] {900, 1000, 1000, 900}),
        pairedRun("oneThread", "zookeeper/locksmith:zookeeper/curator", new double[] {1100, 1000}),
        pairedRun(
            "oneThread",
            "memcached/locksmith-unfenced:memcached/raw",
            new double[] {950, 1000, 1000, 950}));
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        // 1.30 ÷ 0.90: a client doing Locksmith's work could reach 1.44× ShedLock.
        .contains(
            "| H2: Locksmith ≥ 1.5× the better of Spring Integration and ShedLock, 1 thread |"
                + " 1.30× [1.30–1.30] over 1 turns (vs shedlock); raw bound 1.44×; separate forks"
                + " not run | **MISSED**, beyond the raw bound |")
        // Two iterations are no whole turn.
        .contains(
            "| ZooKeeper: Locksmith ≥ 1.0× Curator InterProcessMutex, 1 thread | — (not paired);"
                + " separate forks not run | NOT RUN |")
        .contains(
            "| memcached, fencing off (the raw chain's round trips): Locksmith ≥ 0.9× the raw"
                + " chain, 1 thread | 0.95× [0.95–0.95] over 1 turns; separate forks not run | MET"
                + " |")
        // No pairs at sixteen threads: judged on the separate forks, of which there are none.
        .contains(
            "| ZooKeeper: Locksmith ≥ 1.0× Curator InterProcessMutex, 16 threads | — | NOT RUN |");
  }

  @Test
  @DisplayName(
      "where a run measured pairs, a ratio goal is judged on the turns of one fork, with the"
          + " separate forks' ratio beside it, whichever way the two disagree")
  void pairedTurnsJudge() throws IOException {
    writeJmh(
        results.resolve("jmh.json"),
        jmhRun("oneThread", "zookeeper/locksmith", 1200, 1200, 1200),
        jmhRun("oneThread", "zookeeper/curator", 1000, 1000, 1000),
        jmhRun("oneThread", "memcached/locksmith", 800, 800, 800),
        jmhRun("oneThread", "memcached/raw-fenced", 1000, 1000, 1000));
    writePaired(
        results,
        pairedRun(
            "oneThread",
            "zookeeper/locksmith:zookeeper/curator",
            new double[] {950, 1000, 1000, 950}),
        pairedRun(
            "oneThread",
            "memcached/locksmith:memcached/raw-fenced",
            new double[] {950, 1000, 1000, 950}));
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains(
            "| ZooKeeper: Locksmith ≥ 1.0× Curator InterProcessMutex, 1 thread | 0.95× [0.95–0.95]"
                + " over 1 turns; separate forks 1.20× [1.20–1.20] | **MISSED** |")
        .contains(
            "| memcached, the same work (fencing token) on bare spymemcached: Locksmith ≥ 0.9×"
                + " raw-fenced, 1 thread | 0.95× [0.95–0.95] over 1 turns; separate forks 0.80×"
                + " [0.80–0.80] | MET |")
        .doesNotContain("paired in one fork |");
  }

  @Test
  @DisplayName(
      "a goal against the plain raw target that Locksmith meets against the same work on the bare"
          + " driver says the gap is work the raw target skips, in each run and across runs; one"
          + " the same work misses too is plainly missed")
  void gapOfSkippedWork(@TempDir Path dir) throws IOException {
    List<Path> runs = new java.util.ArrayList<>();
    // Locksmith ÷ raw-fenced: 0.95, 0.95, 0.85; Locksmith ÷ raw: 0.80 in every run.
    double[] sameWork = {950, 950, 850};
    for (int r = 0; r < 3; r++) {
      Path run = Files.createDirectories(dir.resolve("run-" + (r + 1)));
      writePaired(
          run,
          pairedRun(
              "sixteenThreads", "redis/locksmith:redis/raw", new double[] {800, 1000, 1000, 800}),
          pairedRun(
              "sixteenThreads",
              "redis/locksmith:redis/raw-fenced",
              new double[] {sameWork[r], 1000, 1000, sameWork[r]}));
      runs.add(run);
    }
    assertThat(ReportMain.render(runs.get(0), "quick"))
        .contains(
            "| Redis: Locksmith ≥ 0.9× the raw pair (SET NX PX + EVAL), 16 threads | 0.80×"
                + " [0.80–0.80] over 1 turns; same work 0.95×; separate forks not run |"
                + " **MISSED**, the gap is work the raw target skips |");
    assertThat(ReportMain.render(runs.get(2), "quick"))
        .contains(
            "| Redis: Locksmith ≥ 0.9× the raw pair (SET NX PX + EVAL), 16 threads | 0.80×"
                + " [0.80–0.80] over 1 turns; same work 0.85×; separate forks not run |"
                + " **MISSED** |");
    assertThat(ReportMain.render(runs, "quick"))
        .contains("| **MISSED** (met in 0 of 3; the gap is work the raw target skips in 2 of 3) |");
  }

  @Test
  @DisplayName("a measurement that is missing shows as NOT RUN instead of disappearing")
  void missingIsNotRun() throws IOException {
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains("ZooKeeper: Locksmith ≥ 1.0× Curator InterProcessMutex, 16 threads | — | NOT RUN")
        .contains("| redis hand-off p50 ≤ 0.50 ms (Locksmith) | — | NOT RUN |")
        .contains("| scale runs | — | NOT RUN |")
        .contains("## The raw bounds")
        .contains("- `zookeeper/raw`: create an `EPHEMERAL_SEQUENTIAL` node");
  }

  @Test
  @DisplayName("hand-off uses the median of the repeats' p50 and p99, with their range")
  void handoffMedians() throws IOException {
    Files.writeString(
        results.resolve("handoff.json"),
        "[{\"target\":\"redis/locksmith\",\"samples\":50,\"repeats\":["
            + "{\"p50Millis\":0.5,\"p99Millis\":2.0},"
            + "{\"p50Millis\":0.7,\"p99Millis\":3.0},"
            + "{\"p50Millis\":1.5,\"p99Millis\":9.0}]},"
            + "{\"target\":\"redis/raw\",\"samples\":50,\"repeats\":["
            + "{\"p50Millis\":0.4,\"p99Millis\":1.0},"
            + "{\"p50Millis\":0.3,\"p99Millis\":1.0},"
            + "{\"p50Millis\":0.6,\"p99Millis\":2.0}]},"
            + "{\"target\":\"zookeeper/locksmith\",\"samples\":50,\"repeats\":[],"
            + "\"error\":\"java.lang.IllegalStateException: boom\"}]");
    String md = ReportMain.render(results, "full");

    assertThat(md)
        .contains(
            "| redis hand-off p50 ≤ 0.50 ms (Locksmith) | 0.70 ms [0.50–1.50] (raw floor 0.40 ms"
                + " [0.30–0.60]) | **MISSED** |")
        .contains("| redis/locksmith | 50 × 3 | 0.70 ms [0.50–1.50] | 3.00 ms [2.00–9.00] |")
        .contains("| zookeeper/locksmith | — | FAILED: java.lang.IllegalStateException: boom")
        .contains("| zookeeper hand-off p50 ≤ 2.00 ms (Locksmith) | — | NOT RUN |");
  }

  @Test
  @DisplayName(
      "a hand-off goal (p50, or Redis's p99) that the raw client's own hand-off misses is beyond"
          + " the raw bound")
  void handoffBeyondRawFloor() throws IOException {
    Files.writeString(
        results.resolve("handoff.json"),
        "[{\"target\":\"redis/locksmith\",\"samples\":50,\"repeats\":["
            + "{\"p50Millis\":1.0,\"p99Millis\":3.5},"
            + "{\"p50Millis\":1.05,\"p99Millis\":3.6},"
            + "{\"p50Millis\":1.1,\"p99Millis\":4.0}]},"
            + "{\"target\":\"redis/raw\",\"samples\":50,\"repeats\":["
            + "{\"p50Millis\":0.9,\"p99Millis\":4.5},"
            + "{\"p50Millis\":0.95,\"p99Millis\":4.5},"
            + "{\"p50Millis\":1.0,\"p99Millis\":4.5}]},"
            + "{\"target\":\"zookeeper/locksmith\",\"samples\":50,\"repeats\":["
            + "{\"p50Millis\":2.5,\"p99Millis\":4.0}]},"
            + "{\"target\":\"zookeeper/raw\",\"samples\":50,\"repeats\":["
            + "{\"p50Millis\":1.5,\"p99Millis\":3.0}]}]");
    String md = ReportMain.render(results, "quick");

    assertThat(md)
        .contains(
            "| redis hand-off p50 ≤ 0.50 ms (Locksmith) | 1.05 ms [1.00–1.10] (raw floor 0.95 ms"
                + " [0.90–1.00]) | **MISSED**, beyond the raw bound |")
        .contains(
            "| redis hand-off p99 ≤ 3.00 ms (Locksmith) | 3.60 ms [3.50–4.00] (raw floor 4.50 ms"
                + " [4.50–4.50]) | **MISSED**, beyond the raw bound |")
        .contains(
            "| zookeeper hand-off p50 ≤ 2.00 ms (Locksmith) | 2.50 ms [2.50–2.50] (raw floor 1.50"
                + " ms [1.50–1.50]) | **MISSED** |")
        .doesNotContain("zookeeper hand-off p99");
  }

  @Test
  @DisplayName("scale runs that fail their promise are marked MISSED")
  void scaleMarks() throws IOException {
    Files.writeString(
        results.resolve("scale.json"),
        "[{\"kind\":\"leases\",\"store\":\"redis\",\"leases\":10000,\"holdSeconds\":60,"
            + "\"lost\":3,\"invalidAtEnd\":3,\"rivalChecks\":200,\"rivalAcquired\":0,"
            + "\"maxRenewerThreads\":1,\"heapBeforeMiB\":10.0,\"heapHeldMiB\":20.0,"
            + "\"heapPerLeaseBytes\":1048.5,\"pass\":false},"
            + "{\"kind\":\"contention\",\"store\":\"h2\",\"threads\":64,\"names\":1000,"
            + "\"seconds\":60,\"holds\":5000,\"holdsPerSecond\":83.3,\"violations\":0,"
            + "\"errors\":0,\"pass\":true}]");
    String md = ReportMain.render(results, "full");

    assertThat(md)
        .contains(
            "| scale: redis, 10,000 auto-renewed leases held 60 s | 3 lost, 3 invalid, 0/200"
                + " stolen, ≤ 1 renewer threads, heap +10.0 MiB (1049 B/lease) | **MISSED** |")
        .contains(
            "| scale: h2, 64 threads on 1,000 names for 60 s under the history checker | 5,000"
                + " holds (83.30/s), 0 violations, 0 errors | MET |");
  }

  @Test
  @DisplayName("percentiles use the nearest rank")
  void percentiles() {
    long[] sorted = new long[100];
    for (int i = 0; i < 100; i++) {
      sorted[i] = i + 1;
    }
    assertThat(HandoffMain.percentile(sorted, 0.50)).isEqualTo(50);
    assertThat(HandoffMain.percentile(sorted, 0.99)).isEqualTo(99);
    assertThat(HandoffMain.percentile(new long[] {7}, 0.99)).isEqualTo(7);
  }

  @Test
  @DisplayName(
      "several runs: each goal shows every run's measurement, MET only if met in all, and the"
          + " machine load of each run")
  void goalsAcrossRuns(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
    List<Path> runs = new java.util.ArrayList<>();
    double[] p50 = {0.4, 0.45, 0.7};
    for (int r = 0; r < 3; r++) {
      Path run = Files.createDirectories(dir.resolve("run-" + (r + 1)));
      Files.writeString(
          run.resolve("handoff.json"),
          "[{\"target\":\"redis/locksmith\",\"samples\":50,\"repeats\":["
              + "{\"p50Millis\":"
              + p50[r]
              + ",\"p99Millis\":2.0}]}]");
      Files.writeString(run.resolve("load.txt"), "before: load average: 0.1" + r + "\nafter: x");
      if (r == 1) {
        writePaired(
            run,
            pairedRun(
                "oneThread", "redis/locksmith:redis/raw", new double[] {950, 1000, 1000, 950}));
      }
      runs.add(run);
    }
    String md = ReportMain.render(runs, "quick");
    assertThat(md)
        .contains("3 consecutive runs")
        .contains("| goal | run 1 | run 2 | run 3 | status |")
        .contains(
            "| redis hand-off p50 ≤ 0.50 ms (Locksmith) | 0.40 ms [0.40–0.40] | 0.45 ms"
                + " [0.45–0.45] | 0.70 ms [0.70–0.70] | **MISSED** (met in 2 of 3) |")
        .contains("| scale runs | — | — | — | NOT RUN |")
        // Rows only one run has line up by their goal, not by their place in the table.
        .contains(
            "| Redis: Locksmith ≥ 0.9× the raw pair (SET NX PX + EVAL), 1 thread | — | 0.95×"
                + " [0.95–0.95] over 1 turns; separate forks not run | — | **MISSED** (met in 1 of"
                + " 3) |")
        .contains("- run 3: before: load average: 0.12; after: x");
  }
}
