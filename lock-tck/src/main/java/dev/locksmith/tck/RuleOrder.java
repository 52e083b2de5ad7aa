package dev.locksmith.tck;

import java.util.Comparator;
import org.junit.jupiter.api.MethodDescriptor;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/** Runs the kit's rules in the order of {@link Rule} (1.1, 1.2, …, 14.8), other tests after. */
final class RuleOrder implements MethodOrderer {

  @Override
  public void orderMethods(MethodOrdererContext context) {
    context
        .getMethodDescriptors()
        .sort(
            Comparator.comparingInt(RuleOrder::position)
                .thenComparing(d -> d.getMethod().getName()));
  }

  private static int position(MethodDescriptor d) {
    return Rule.ofMethod(d.getMethod().getName()).map(Enum::ordinal).orElse(Integer.MAX_VALUE);
  }
}
