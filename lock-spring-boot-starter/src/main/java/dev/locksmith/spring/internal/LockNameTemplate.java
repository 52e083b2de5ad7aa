package dev.locksmith.spring.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * A {@link dev.locksmith.spring.Locked#name()}: text with {@code #{…}} SpEL templates over the
 * method's arguments, parsed and checked once at startup and evaluated per call.
 *
 * <p>At startup a template that does not parse, or that names a variable the method does not have
 * (a parameter name, {@code #p0}/{@code #a0}, {@code #root}, {@code #this}), fails with an {@link
 * IllegalArgumentException}, so a typo cannot make every call share one lock. At a call, a template
 * that throws or evaluates to an empty name fails the same way.
 */
final class LockNameTemplate {

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

  private final String text;
  private final String where;
  private final Method method;
  private final Expression expression;
  private final @Nullable BeanResolver beans;

  /**
   * Parses {@code text} for {@code method}; {@code where} names the method in messages.
   *
   * @throws IllegalArgumentException if it is blank, does not parse, or names unknown variables
   */
  LockNameTemplate(String text, Method method, String where, @Nullable BeanFactory beanFactory) {
    this.text = text;
    this.where = where;
    this.method = method;
    this.beans = beanFactory != null ? new BeanFactoryResolver(beanFactory) : null;
    if (text.isBlank()) {
      throw new IllegalArgumentException("@Locked on " + where + ": name must not be blank");
    }
    try {
      this.expression = PARSER.parseExpression(text, new TemplateParserContext());
    } catch (ParseException e) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + ": name '"
              + text
              + "' is not a valid SpEL template: "
              + e.getMessage(),
          e);
    }
    checkVariables();
  }

  /** The template as written (after placeholders): a low-cardinality label. */
  String text() {
    return text;
  }

  /**
   * The lock name for a call of the method on {@code target} with {@code args}.
   *
   * @throws IllegalArgumentException if evaluation fails or gives an empty name
   */
  String evaluate(@Nullable Object target, Object[] args) {
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(target, method, args, NAMES);
    if (beans != null) {
      context.setBeanResolver(beans);
    }
    String name;
    try {
      name = expression.getValue(context, String.class);
    } catch (EvaluationException e) {
      throw new IllegalArgumentException(
          "@Locked on " + where + ": name '" + text + "' failed to evaluate: " + e.getMessage(), e);
    }
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + ": name '"
              + text
              + "' evaluated to an empty lock name for arguments "
              + Arrays.toString(args));
    }
    return name;
  }

  private void checkVariables() {
    List<SpelNode> roots = new ArrayList<>();
    if (expression instanceof SpelExpression spel) {
      roots.add(spel.getAST());
    } else if (expression instanceof CompositeStringExpression composite) {
      for (Expression part : composite.getExpressions()) {
        if (part instanceof SpelExpression spel) {
          roots.add(spel.getAST());
        }
      }
    }
    Set<String> used = new LinkedHashSet<>();
    for (SpelNode root : roots) {
      collectVariables(root, used);
    }
    if (used.isEmpty()) {
      return;
    }
    Set<String> known = new LinkedHashSet<>(List.of("root", "this"));
    int count = method.getParameterCount();
    for (int i = 0; i < count; i++) {
      known.add("p" + i);
      known.add("a" + i);
    }
    String[] names = NAMES.getParameterNames(method);
    if (names != null) {
      known.addAll(Arrays.asList(names));
    }
    for (String variable : used) {
      if (!known.contains(variable)) {
        throw new IllegalArgumentException(
            "@Locked on "
                + where
                + ": name '"
                + text
                + "' uses #"
                + variable
                + ", which is not a parameter of the method; "
                + (names != null
                    ? "its parameters are " + Arrays.toString(names)
                    : "its parameter names are not available (compile with -parameters, as"
                        + " Spring Boot's Maven and Gradle plugins do, or use #p0, #p1…)"));
      }
    }
  }

  private static void collectVariables(SpelNode node, Set<String> into) {
    if (node instanceof VariableReference) {
      into.add(node.toStringAST().substring(1));
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      collectVariables(node.getChild(i), into);
    }
  }
}
