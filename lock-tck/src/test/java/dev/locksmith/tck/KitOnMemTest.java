package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EventType;
import org.junit.platform.testkit.engine.Events;

/**
 * The positive control: the whole kit passes on the reference mem: store, with every rule run but
 * the multi-process ones (a mem: space lives in one JVM, so it has no URI another process could
 * share).
 */
class KitOnMemTest {

  @Test
  @DisplayName("the kit passes on mem:, every rule run but the multi-process group")
  void memPassesEverything() {
    Events tests = KitRuns.run(MemLockContractTest.class);
    List<String> notPassed =
        tests
            .filter(
                e ->
                    e.getType() == EventType.FINISHED
                        && e.getPayload(TestExecutionResult.class)
                            .map(r -> r.getStatus() != TestExecutionResult.Status.SUCCESSFUL)
                            .orElse(false))
            .map(e -> e.getTestDescriptor().getDisplayName() + " -> " + e.getPayload().orElse(""))
            .collect(Collectors.toList());
    List<String> skipped =
        tests
            .skipped()
            .map(e -> KitRuns.rule(e).map(Rule::id).orElse("?") + " " + e.getPayload().orElse(""))
            .collect(Collectors.toList());
    assertThat(notPassed).as("rules that did not pass on mem:").isEmpty();
    assertThat(skipped)
        .as("rules skipped on mem:")
        .allMatch(s -> s.startsWith("13.") && s.contains("no store URI"));
    assertThat(tests.started().count()).as("rules run").isGreaterThanOrEqualTo(120);
  }
}
