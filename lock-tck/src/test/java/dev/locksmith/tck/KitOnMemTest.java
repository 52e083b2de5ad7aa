package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.EventType;
import org.junit.platform.testkit.engine.Events;

/** The positive control: the whole kit passes on the reference mem: store, with nothing skipped. */
class KitOnMemTest {

  @Test
  @DisplayName("the kit passes on mem: with every rule run: none skipped, aborted or failed")
  void memPassesEverything() {
    Events tests =
        EngineTestKit.engine("junit-jupiter")
            .selectors(selectClass(MemLockContractTest.class))
            .execute()
            .testEvents();
    List<String> notPassed =
        tests
            .filter(
                e ->
                    e.getType() == EventType.SKIPPED
                        || (e.getType() == EventType.FINISHED
                            && e.getPayload(TestExecutionResult.class)
                                .map(
                                    r ->
                                        r.getStatus()
                                            != org.junit.platform.engine.TestExecutionResult.Status
                                                .SUCCESSFUL)
                                .orElse(false)))
            .map(
                e ->
                    e.getTestDescriptor().getDisplayName()
                        + " -> "
                        + e.getType()
                        + " "
                        + e.getPayload().orElse(""))
            .collect(Collectors.toList());
    assertThat(tests.started().count()).as("rules run").isGreaterThanOrEqualTo(90);
    assertThat(notPassed).as("rules that did not pass on mem:").isEmpty();
  }
}
