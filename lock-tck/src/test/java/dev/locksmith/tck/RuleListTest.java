package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
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
          EngineUnderFaultsRules.class,
          FootprintRules.class);

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
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }

  @Test
  @DisplayName("README's rules section is the rules list, with each rule's capabilities and hooks")
  void readmeListsTheRules() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int start = readme.indexOf("## The rules\n");
    int end = readme.indexOf("\n## ", start + 1);
    assertThat(start).as("a '## The rules' section in lock-tck/README.md").isNotNegative();
    String expected = rulesSection();
    assertThat(readme.substring(start, end + 1))
        .as("lock-tck/README.md's rules section; replace it with:%n%s", expected)
        .isEqualTo(expected);
  }

  /** The README's rules section, generated from {@link Rule} and the rules' {@link Requires}. */
  private static String rulesSection() {
    Map<Rule, String> needs = new EnumMap<>(Rule.class);
    for (Class<?> group : GROUPS) {
      for (Method m : group.getDeclaredMethods()) {
        Requires r = m.getAnnotation(Requires.class);
        Optional<Rule> rule = Rule.ofMethod(m.getName());
        if (r == null || rule.isEmpty()) {
          continue;
        }
        List<String> parts = new ArrayList<>();
        Arrays.stream(r.value()).forEach(c -> parts.add(c.name()));
        Arrays.stream(r.hooks()).forEach(h -> parts.add("hook " + h.name()));
        if (r.leaseExpiry()) {
          parts.add("lease expiry");
        }
        if (!parts.isEmpty()) {
          needs.put(rule.get(), " *(" + String.join(", ", parts) + ")*");
        }
      }
    }
    StringBuilder sb = new StringBuilder("## The rules\n\n");
    sb.append("Generated from `Rule` (`RuleListTest` keeps it in step); `locksmith tck --rules`")
        .append(" prints the same list. *(…)* names what a rule needs: a capability the store")
        .append(" declares, a hook the contract test provides, or holds that end at a lease time.")
        .append(" `[kind]` rules run for exclusive, read and write holds.\n");
    for (RuleGroup g : RuleGroup.values()) {
      sb.append("\n**").append(g.number()).append(". ").append(g.title()).append("**\n\n");
      for (Rule rule : Rule.values()) {
        if (rule.group() == g) {
          sb.append("- ")
              .append(rule.id())
              .append(": ")
              .append(rule.sentence())
              .append(needs.getOrDefault(rule, ""))
              .append('\n');
        }
      }
    }
    return sb.toString();
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
