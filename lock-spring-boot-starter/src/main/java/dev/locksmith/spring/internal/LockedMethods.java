package dev.locksmith.spring.internal;

import dev.locksmith.spring.Locked;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The pointcut of {@link Locked} methods and the cache of their checked annotations.
 *
 * <p>When Spring asks whether a bean class is a candidate for the advice, every {@code @Locked}
 * method of the class (its own, inherited, or declared on an interface) is read and checked, so a
 * bad annotation fails the bean's creation, and so startup, naming the method, even on methods no
 * one calls yet.
 */
final class LockedMethods extends StaticMethodMatcherPointcut {

  private final Map<MethodClassKey, Optional<LockedMethod>> cache = new ConcurrentHashMap<>();
  private final PropertyResolver placeholders;
  private final @Nullable BeanFactory beanFactory;
  private volatile boolean anyFound;

  LockedMethods(PropertyResolver placeholders, @Nullable BeanFactory beanFactory) {
    this.placeholders = placeholders;
    this.beanFactory = beanFactory;
    setClassFilter(this::checkClass);
  }

  @Override
  public boolean matches(Method method, Class<?> targetClass) {
    return find(method, targetClass).isPresent();
  }

  /** Whether some bean has a {@code @Locked} method (so a {@code LockClient} is needed). */
  boolean anyFound() {
    return anyFound;
  }

  /** The checked annotation of {@code method} as called on {@code targetClass}, if it has one. */
  Optional<LockedMethod> find(Method method, @Nullable Class<?> targetClass) {
    return cache.computeIfAbsent(
        new MethodClassKey(method, targetClass), key -> read(method, targetClass));
  }

  private Optional<LockedMethod> read(Method method, @Nullable Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    Locked locked = AnnotatedElementUtils.findMergedAnnotation(specific, Locked.class);
    if (locked == null && specific != method) {
      locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
    }
    if (locked == null) {
      return Optional.empty();
    }
    anyFound = true;
    return Optional.of(new LockedMethod(specific, locked, placeholders, beanFactory));
  }

  private boolean checkClass(Class<?> type) {
    if (!AnnotationUtils.isCandidateClass(type, Locked.class)) {
      return false;
    }
    boolean[] found = {false};
    ReflectionUtils.doWithMethods(
        type, m -> found[0] |= find(m, type).isPresent(), m -> !m.isBridge() && !m.isSynthetic());
    for (Class<?> itf : ClassUtils.getAllInterfacesForClassAsSet(type)) {
      for (Method m : itf.getMethods()) {
        found[0] |= find(m, type).isPresent();
      }
    }
    return found[0];
  }
}
