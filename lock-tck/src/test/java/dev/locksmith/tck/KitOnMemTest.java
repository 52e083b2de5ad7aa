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
  @DisplayName(
      "the kit passes on mem:, every rule run but the multi-process group and the queue rules")
  void memPassesEverything() {
    assertPasses(MemLockContractTest.class, "13.", "7.9", "7.10");
  }

  @Test
  @DisplayName("the kit passes on mem:?waiters=queue, every rule run but the multi-process group")
  void memWithQueuePassesEverything() {
    assertPasses(MemQueueLockContractTest.class, "13.");
  }

  private static void assertPasses(
      Class<? extends LockStoreContract> contract, String... mayBeSkipped) {
    Events tests = KitRuns.run(contract);
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
        .allMatch(s -> java.util.Arrays.stream(mayBeSkipped).anyMatch(s::startsWith));
    assertThat(tests.started().count()).as("rules run").isGreaterThanOrEqualTo(120);
  }
}
