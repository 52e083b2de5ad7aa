package dev.locksmith.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The paired benchmark gives each of its two targets half of the measured iterations, in an order
 * that a steady drift of the machine cannot favour, and runs under JMH (the benchmark's in-memory
 * H2 database: no server needed).
 */
class PairedBenchmarkTest {

  @Test
  @DisplayName("measured iterations take turns first, second, second, first, whatever the warm-up")
  void turns() throws Exception {
    PairedBenchmark bench = new PairedBenchmark();
    bench.pair = "h2/raw:h2/raw-fenced";
    bench.openPair();
    try {
      for (int i = 0; i < 3; i++) {
        bench.turn(iteration(IterationType.WARMUP));
      }
      List<String> measured = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        bench.turn(iteration(IterationType.MEASUREMENT));
        measured.add(bench.subject().id());
      }
      assertThat(measured)
          .containsExactly(
              "h2/raw",
              "h2/raw-fenced",
              "h2/raw-fenced",
              "h2/raw",
              "h2/raw",
              "h2/raw-fenced",
              "h2/raw-fenced",
              "h2/raw");
    } finally {
      bench.close();
    }
  }

  @Test
  @DisplayName("a pair that is not two target ids is refused, naming it")
  void badPair() {
    for (String pair : List.of("h2/raw", ":h2/raw", "h2/raw:", "h2/raw:h2/raw:h2/raw")) {
      PairedBenchmark bench = new PairedBenchmark();
      bench.pair = pair;
      assertThatThrownBy(bench::openPair)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + pair + "'");
    }
    PairedBenchmark unknown = new PairedBenchmark();
    unknown.pair = "h2/raw:h2/nothing";
    assertThatThrownBy(unknown::openPair)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("h2/nothing");
  }

  @Test
  @DisplayName("JMH runs a pair and reports every measured iteration")
  void runsUnderJmh() throws Exception {
    Options options =
        new OptionsBuilder()
            .include(PairedBenchmark.class.getName() + ".oneThread")
            .param("pair", "h2/raw:h2/raw-fenced")
            .forks(0)
            .warmupIterations(1)
            .warmupTime(TimeValue.milliseconds(200))
            .measurementIterations(4)
            .measurementTime(TimeValue.milliseconds(200))
            .build();
    RunResult result = new Runner(options).runSingle();
    List<Double> scores = new ArrayList<>();
    result
        .getBenchmarkResults()
        .forEach(
            b -> b.getIterationResults().forEach(i -> scores.add(i.getPrimaryResult().getScore())));
    assertThat(scores).hasSize(4).allSatisfy(s -> assertThat(s).isPositive());
  }

  private static IterationParams iteration(IterationType type) {
    return new IterationParams(type, 1, TimeValue.seconds(1), 1);
  }
}
