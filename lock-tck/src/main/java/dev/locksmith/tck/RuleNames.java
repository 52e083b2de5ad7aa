package dev.locksmith.tck;

import java.lang.reflect.Method;
import org.junit.jupiter.api.DisplayNameGenerator;

/**
 * Names each kit test by its rule ({@code Rule 3.7: a crashed holder keeps …}) from {@link Rule},
 * so the sentence is written once; other tests keep JUnit's standard names.
 */
final class RuleNames extends DisplayNameGenerator.Standard {

  @Override
  public String generateDisplayNameForMethod(Class<?> testClass, Method testMethod) {
    return Rule.ofMethod(testMethod.getName())
        .map(Rule::title)
        .orElseGet(() -> super.generateDisplayNameForMethod(testClass, testMethod));
  }
}
