package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import dev.locksmith.LockOptions;
import dev.locksmith.spring.Locked;
import dev.locksmith.spring.OnBusy;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.ClassUtils;

/**
 * One {@link Locked} method, its annotation read and checked once at startup: the name template,
 * the durations, what a skipped call returns, which parameters receive the lease, and whether it is
 * a scheduled job (whose run is skipped, not failed, when the store does not answer: nobody but the
 * scheduler's error log would see the exception).
 */
final class LockedMethod {

  private final String where;
  private final LockNameTemplate name;
  private final Duration waitFor;
  private final OnBusy onBusy;
  private final @Nullable Duration leaseTime;
  private final Duration holdAtLeast;
  private final int[] leaseParameters;
  private final @Nullable Object skippedValue;
  private final LockedCall.OnStoreFailure onStoreFailure;

  /**
   * Reads {@code locked} on {@code method}.
   *
   * @param placeholders resolves {@code ${…}} in the attributes
   * @param beanFactory for {@code @bean} references in the name, or null
   * @throws IllegalArgumentException naming the method and the attribute if anything is wrong
   */
  LockedMethod(
      Method method,
      Locked locked,
      PropertyResolver placeholders,
      @Nullable BeanFactory beanFactory) {
    this.where = describe(method);
    int modifiers = method.getModifiers();
    if (Modifier.isPrivate(modifiers)
        || Modifier.isFinal(modifiers)
        || Modifier.isStatic(modifiers)) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + " would have no effect: Spring AOP cannot intercept private, final or static"
              + " methods, so it would run unlocked; make it public (or protected) and not final");
    }
    this.onBusy = locked.onBusy();
    this.name =
        new LockNameTemplate(
            resolve(placeholders, "name", locked.name()), method, where, beanFactory);
    this.waitFor = duration(placeholders, "waitFor", locked.waitFor(), Duration.ZERO);
    if (waitFor.compareTo(LockOptions.MAX_WAIT) > 0) {
      throw new IllegalArgumentException(
          "@Locked on " + where + ": waitFor must be at most " + LockOptions.MAX_WAIT);
    }
    if (onBusy == OnBusy.WAIT && !waitFor.isZero()) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + ": onBusy = WAIT waits as long as it takes, so waitFor = \""
              + locked.waitFor()
              + "\" has no effect; remove it, or use onBusy = FAIL or SKIP to bound the wait");
    }
    Duration lease = duration(placeholders, "leaseTime", locked.leaseTime(), null);
    if (lease != null) {
      try {
        LockOptions.builder().leaseTime(lease);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("@Locked on " + where + ": " + e.getMessage(), e);
      }
    }
    this.leaseTime = lease;
    Duration hold = duration(placeholders, "holdAtLeast", locked.holdAtLeast(), Duration.ZERO);
    this.holdAtLeast = hold != null ? hold : Duration.ZERO;
    Class<?> returns = method.getReturnType();
    rejectAsync(returns);
    if (onBusy == OnBusy.SKIP && returns.isPrimitive() && returns != void.class) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + ": onBusy = SKIP cannot skip a method that returns "
              + returns
              + " (there is no empty value); return a wrapper or an Optional, or use onBusy ="
              + " FAIL");
    }
    this.skippedValue = emptyValue(returns);
    Class<?>[] types = method.getParameterTypes();
    this.leaseParameters =
        IntStream.range(0, types.length).filter(i -> types[i] == Lease.class).toArray();
    this.onStoreFailure =
        AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                || AnnotatedElementUtils.hasAnnotation(method, Schedules.class)
            ? LockedCall.OnStoreFailure.SKIP
            : LockedCall.OnStoreFailure.THROW;
  }

  /** The name, durations and policy for a call with {@code args}. */
  LockedCall.Request request(@Nullable Object target, Object[] args) {
    return new LockedCall.Request(
        name.evaluate(target, args),
        name.text(),
        where,
        waitFor,
        onBusy,
        leaseTime,
        holdAtLeast,
        onStoreFailure);
  }

  /** Puts {@code lease} into the method's {@link Lease} parameters. */
  void passLease(Object[] args, Lease lease) {
    for (int i : leaseParameters) {
      args[i] = lease;
    }
  }

  /** What a skipped call returns. */
  @Nullable Object skippedValue() {
    return skippedValue;
  }

  private void rejectAsync(Class<?> returns) {
    if (Future.class.isAssignableFrom(returns)
        || CompletionStage.class.isAssignableFrom(returns)
        || implementsNamed(returns, "org.reactivestreams.Publisher")) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + ": it returns "
              + returns.getSimpleName()
              + ", whose work goes on after the method returns and the lock is released; lock"
              + " inside the asynchronous task instead (LockTemplate)");
    }
  }

  private static boolean implementsNamed(Class<?> type, String interfaceName) {
    return ClassUtils.getAllInterfacesForClassAsSet(type).stream()
            .anyMatch(i -> i.getName().equals(interfaceName))
        || type.getName().equals(interfaceName);
  }

  private static @Nullable Object emptyValue(Class<?> returns) {
    if (returns == Optional.class) {
      return Optional.empty();
    }
    if (returns == OptionalInt.class) {
      return OptionalInt.empty();
    }
    if (returns == OptionalLong.class) {
      return OptionalLong.empty();
    }
    if (returns == OptionalDouble.class) {
      return OptionalDouble.empty();
    }
    return null;
  }

  private String resolve(PropertyResolver placeholders, String attribute, String value) {
    try {
      return placeholders.resolveRequiredPlaceholders(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "@Locked on " + where + ": " + attribute + " \"" + value + "\": " + e.getMessage(), e);
    }
  }

  private @Nullable Duration duration(
      PropertyResolver placeholders, String attribute, String value, @Nullable Duration unset) {
    String text = resolve(placeholders, attribute, value).strip();
    if (text.isEmpty()) {
      return unset;
    }
    Duration d;
    try {
      d = DurationStyle.detectAndParse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "@Locked on "
              + where
              + ": "
              + attribute
              + " \""
              + text
              + "\" is not a duration; write 500ms, 5s, 14m, PT5S, or a number of milliseconds",
          e);
    }
    if (d.isNegative()) {
      throw new IllegalArgumentException(
          "@Locked on " + where + ": " + attribute + " must not be negative, was \"" + text + "\"");
    }
    return d;
  }

  /** {@code OrderService.ship(long)}. */
  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName()
        + "."
        + method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }
}
