package dev.locksmith.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-off harness warms every target up before it records any, and measures the targets by
 * turns, so that the first target in the JVM does not pay for warming what the others reuse. Runs
 * on the benchmark's in-memory H2 database and on the in-process {@code mem:} store (as a store
 * that {@code scripts/bench} found through its fixture): no server needed.
 */
class HandoffMainTest {

  @Test
  @DisplayName(
      "every target is warmed up before any is recorded, then the repeats take turns: forwards,"
          + " backwards, forwards")
  void repeatsTakeTurns(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("handoff.json");
    List<String> lines = run("h2/locksmith,fixture/locksmith", 5, 3, out);

    assertThat(lines)
        .containsExactly(
            "handoff h2/locksmith           warmed up",
            "handoff fixture/locksmith      warmed up",
            "handoff h2/locksmith           repeat 1",
            "handoff fixture/locksmith      repeat 1",
            "handoff fixture/locksmith      repeat 2",
            "handoff h2/locksmith           repeat 2",
            "handoff h2/locksmith           repeat 3",
            "handoff fixture/locksmith      repeat 3");
    JsonNode results = new ObjectMapper().readTree(out.toFile());
    assertThat(results).hasSize(2);
    for (JsonNode target : results) {
      assertThat(target.has("error")).as(target.toString()).isFalse();
      assertThat(target.get("repeats")).hasSize(3);
      for (JsonNode repeat : target.get("repeats")) {
        assertThat(repeat.get("p50Millis").asDouble()).isPositive();
        assertThat(repeat.get("p99Millis").asDouble())
            .isGreaterThanOrEqualTo(repeat.get("p50Millis").asDouble());
      }
    }
  }

  @Test
  @DisplayName("a target that fails is recorded with its error once, and the others still run")
  void failedTargetIsRecorded(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("handoff.json");
    List<String> lines = run("h2/raw,h2/locksmith", 3, 2, out);

    assertThat(lines)
        .containsExactly(
            "handoff h2/raw FAILED",
            "handoff h2/locksmith           warmed up",
            "handoff h2/locksmith           repeat 1",
            "handoff h2/locksmith           repeat 2");
    JsonNode results = new ObjectMapper().readTree(out.toFile());
    assertThat(results.get(0).get("target").asText()).isEqualTo("h2/raw");
    assertThat(results.get(0).get("error").asText()).contains("no blocking acquire");
    assertThat(results.get(0).get("repeats")).isEmpty();
    assertThat(results.get(1).get("repeats")).hasSize(2);
  }

  @Test
  @DisplayName("no samples or no repeats is refused, naming the arguments")
  void badCounts(@TempDir Path dir) {
    String out = dir.resolve("handoff.json").toString();
    assertThatThrownBy(
            () ->
                HandoffMain.main(
                    new String[] {"--targets", "h2/locksmith", "--samples", "0", "--out", out}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--samples and --repeats must be at least 1, got 0 and 3");
  }

  /**
   * Runs {@link HandoffMain} on {@code targets} and returns its progress lines, cut after the
   * target and the repeat (the timings vary).
   */
  private static List<String> run(String targets, int samples, int repeats, Path out)
      throws Exception {
    String[] args = {
      "--targets",
      targets,
      "--samples",
      String.valueOf(samples),
      "--repeats",
      String.valueOf(repeats),
      "--out",
      out.toString()
    };
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setProperty("bench.uri.fixture", "mem:handoff-test");
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      HandoffMain.main(args);
    } finally {
      System.setOut(original);
      System.clearProperty("bench.uri.fixture");
    }
    return Arrays.stream(captured.toString(StandardCharsets.UTF_8).split("\n"))
        .filter(line -> line.startsWith("handoff "))
        .map(line -> line.replaceAll("(repeat \\d+):.*|( FAILED):.*", "$1$2"))
        .collect(Collectors.toList());
  }
}
