package dev.locksmith.tck;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/** Runs the kit, or some of its rule groups, against a contract class inside a test. */
final class KitRuns {

  private KitRuns() {}

  /** The test events of running {@code groups} (every rule when none) against {@code kit}. */
  static Events run(Class<? extends LockStoreContract> kit, Class<?>... groups) {
    List<DiscoverySelector> selectors = new ArrayList<>();
    if (groups.length == 0) {
      selectors.add(selectClass(kit));
    }
    for (Class<?> group : groups) {
      for (Method m : group.getDeclaredMethods()) {
        if (Rule.ofMethod(m.getName()).isPresent()) {
          selectors.add(selectMethod(kit, m));
        }
      }
    }
    return EngineTestKit.engine("junit-jupiter")
        .selectors(selectors.toArray(DiscoverySelector[]::new))
        .execute()
        .testEvents();
  }

  /** The ids of the rules ({@code "3.1"}) whose tests failed. */
  static Set<String> failedRules(Events tests) {
    Set<String> failed = new TreeSet<>((a, b) -> compareIds(a, b));
    for (Event e : tests.failed().list()) {
      rule(e).ifPresent(r -> failed.add(r.id()));
    }
    return failed;
  }

  /** The rule an event's test belongs to. */
  static Optional<Rule> rule(Event e) {
    Optional<TestSource> source = e.getTestDescriptor().getSource();
    if (source.isPresent() && source.get() instanceof MethodSource) {
      return Rule.ofMethod(((MethodSource) source.get()).getMethodName());
    }
    return Optional.empty();
  }

  private static int compareIds(String a, String b) {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    int c = Integer.compare(Integer.parseInt(x[0]), Integer.parseInt(y[0]));
    return c != 0 ? c : Integer.compare(Integer.parseInt(x[1]), Integer.parseInt(y[1]));
  }
}
