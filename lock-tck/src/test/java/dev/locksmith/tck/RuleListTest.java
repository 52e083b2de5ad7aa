package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** The rules list and the rule methods agree, and test reports name the store's own class. */
class RuleListTest {

  private static final List<Class<?>> GROUPS =
      List.of(
          MutualExclusionRules.class,
          OwnershipRules.class,
          ExpiryRules.class,
          RenewalRules.class,
          FencingRules.class,
          ReentrancyRules.class,
          WaitingRules.class,
          ReadWriteRules.class,
          MultiLockRules.class,
          BadInputRules.class,
          StoreFailureRules.class,
          StoreSpiRules.class,
          ProcessRules.class,
          EngineUnderFaultsRules.class);

  @Test
  @DisplayName("every rule has exactly one test method, in its group's interface, and vice versa")
  void everyRuleHasOneTest() {
    Map<Rule, List<String>> methods = new EnumMap<>(Rule.class);
    List<String> strays = new ArrayList<>();
    for (Class<?> group : GROUPS) {
      for (Method m : group.getDeclaredMethods()) {
        if (!m.getName().startsWith("rule_")) {
          continue;
        }
        Optional<Rule> rule = Rule.ofMethod(m.getName());
        if (rule.isEmpty()) {
          strays.add(group.getSimpleName() + "." + m.getName());
          continue;
        }
        assertThat(GROUPS.indexOf(group) + 1)
            .as("the group of %s", m.getName())
            .isEqualTo(rule.get().group().number());
        methods.computeIfAbsent(rule.get(), r -> new ArrayList<>()).add(m.getName());
      }
    }
    assertThat(strays).as("rule methods with no rule in Rule").isEmpty();
    assertThat(methods.keySet()).as("rules with a test").containsExactly(Rule.values());
    assertThat(methods.values()).as("tests per rule").allMatch(list -> list.size() == 1);
    assertThat(LockStoreContract.class.getInterfaces()).containsExactlyElementsOf(GROUPS);
    assertThat(Arrays.stream(RuleGroup.values()).map(RuleGroup::number))
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
  }

  @Test
  @DisplayName(
      "every kit test belongs to the concrete contract class, so Surefire names its report after"
          + " the store's test, not after the kit")
  void reportsNameTheStore() {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(MemLockContractTest.class))
            .build();
    TestPlan plan = LauncherFactory.create().discover(request);
    List<TestIdentifier> tests = new ArrayList<>();
    for (TestIdentifier root : plan.getRoots()) {
      collect(plan, root, tests);
    }
    assertThat(tests).as("kit tests discovered").hasSizeGreaterThan(80);
    for (TestIdentifier t : tests) {
      Optional<TestSource> source = t.getSource();
      assertThat(source).as("the source of %s", t.getDisplayName()).isPresent();
      assertThat(source.get()).isInstanceOf(MethodSource.class);
      assertThat(((MethodSource) source.get()).getClassName())
          .as("the class %s is reported under", t.getDisplayName())
          .isEqualTo(MemLockContractTest.class.getName());
      assertThat(t.getDisplayName())
          .as("test names carry their rule")
          .matches("Rule \\d+\\.\\d+: .+|\\[\\d+\\] .+");
    }
  }

  private static void collect(TestPlan plan, TestIdentifier id, List<TestIdentifier> out) {
    if (id.getType() == TestDescriptor.Type.TEST) {
      out.add(id);
    }
    for (TestIdentifier child : plan.getChildren(id)) {
      collect(plan, child, out);
    }
  }

  @Test
  @DisplayName("the printed rules list has every rule, grouped")
  void table() {
    String table = Rule.table();
    for (Rule r : Rule.values()) {
      assertThat(table).contains(r.id() + " ");
    }
    assertThat(table).contains("12. The store SPI");
  }
}
