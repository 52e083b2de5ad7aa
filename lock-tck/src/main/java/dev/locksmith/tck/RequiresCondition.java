package dev.locksmith.tck;

import dev.locksmith.Capability;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Skips a rule whose {@link Requires} the store under test does not meet, with a reason that names
 * each missing capability or hook.
 */
final class RequiresCondition implements ExecutionCondition {

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    Optional<Requires> requires =
        context.getElement().flatMap(e -> AnnotationSupport.findAnnotation(e, Requires.class));
    if (requires.isEmpty()) {
      return ConditionEvaluationResult.enabled("no requirements");
    }
    Optional<Object> instance = context.getTestInstance();
    if (instance.isEmpty() || !(instance.get() instanceof LockStoreContract)) {
      return ConditionEvaluationResult.enabled("not a LockStoreContract");
    }
    StoreProfile profile = ((LockStoreContract) instance.get()).profile();
    List<String> missing = new ArrayList<>();
    for (Capability c : requires.get().value()) {
      if (!profile.capabilities().contains(c)) {
        missing.add("the store does not declare " + c);
      }
    }
    for (KitHook hook : requires.get().hooks()) {
      if (!profile.hooks().contains(hook)) {
        missing.add(StoreProfile.missing(hook));
      }
    }
    if (requires.get().leaseExpiry() && profile.capabilities().contains(Capability.SESSION_BOUND)) {
      missing.add(
          "the store is SESSION_BOUND, so its holds end with the session, not at a lease time");
    }
    return missing.isEmpty()
        ? ConditionEvaluationResult.enabled("the store meets the rule's requirements")
        : ConditionEvaluationResult.disabled("skipped: " + String.join("; ", missing));
  }
}
