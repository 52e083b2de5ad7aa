package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EventType;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit against a store its fixture starts: once per class, also when it cannot start (JUnit's
 * extension store keeps the failure of a computed value, so the rules do not start it again).
 */
class FixtureContractTest {

  static final AtomicInteger STARTS = new AtomicInteger();

  /** A fixture whose server is not installed here. */
  static final class MissingServer implements StoreFixture {
    @Override
    public String name() {
      return "missing";
    }

    @Override
    public RunningStore start() {
      STARTS.incrementAndGet();
      throw new IllegalStateException("missing-server is not on the PATH (apt-get install it)");
    }
  }

  /** The kit on that fixture (not a test of its own: run by the test below). */
  static final class OnMissingServer extends FixtureContract {
    OnMissingServer() {
      super(new MissingServer());
    }
  }

  @Test
  @DisplayName(
      "a fixture that cannot start fails every rule with its reason, and is asked to start once,"
          + " not once per rule")
  void unstartableFixtureFailsEachRuleOnce() {
    STARTS.set(0);
    Events tests = KitRuns.run(OnMissingServer.class, MutualExclusionRules.class);
    List<String> reasons =
        tests
            .filter(e -> e.getType() == EventType.FINISHED)
            .map(
                e ->
                    e.getPayload(TestExecutionResult.class)
                        .flatMap(TestExecutionResult::getThrowable)
                        .map(Throwable::getMessage)
                        .orElse("passed"))
            .toList();
    assertThat(reasons).hasSizeGreaterThanOrEqualTo(5);
    assertThat(reasons).allMatch(r -> r.contains("missing-server is not on the PATH"));
    assertThat(STARTS.get()).as("starts of the fixture").isEqualTo(1);
  }
}
