package dev.locksmith.spring.internal;

import dev.locksmith.LockClient;
import dev.locksmith.spring.Locked;
import dev.locksmith.spring.LocksmithProperties;
import dev.locksmith.spring.LostLeaseAction;
import io.micrometer.observation.ObservationRegistry;
import java.util.Optional;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.core.env.PropertyResolver;

/**
 * The Spring AOP advisor that runs {@link Locked} methods through a {@link LockedCall}; picked up
 * by the application's auto-proxy creator like the advisors of {@code @Transactional}.
 *
 * <p>Its order puts it outside transactions and caching (so the lock covers the commit) and inside
 * method security (so a refused call never takes the lock). Its collaborators are looked up on
 * first use, so that creating the advisor early does not create the {@link LockClient} early. If a
 * bean has a {@code @Locked} method but there is no {@link LockClient}, startup fails with how to
 * configure one (a {@link StartupFailure}: one line in the log).
 */
public final class LockedMethodAdvisor extends AbstractPointcutAdvisor
    implements SmartInitializingSingleton {

  private static final long serialVersionUID = 1L;

  /** Outside {@code @Transactional} and {@code @Cacheable} (both lowest), inside security. */
  public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  private final transient LockedMethods methods;
  private final transient ObjectProvider<LockClient> clients;
  private final transient ObjectProvider<LocksmithProperties> properties;
  private final transient ObjectProvider<ObservationRegistry> observations;
  private final transient ObjectProvider<StoreOutage> outages;
  private transient volatile @Nullable LockedCall call;

  /** An advisor whose collaborators come from the application context on first use. */
  public LockedMethodAdvisor(
      ObjectProvider<LockClient> clients,
      ObjectProvider<LocksmithProperties> properties,
      ObjectProvider<ObservationRegistry> observations,
      ObjectProvider<StoreOutage> outages,
      PropertyResolver placeholders,
      @Nullable BeanFactory beanFactory) {
    this.methods = new LockedMethods(placeholders, beanFactory);
    this.clients = clients;
    this.properties = properties;
    this.observations = observations;
    this.outages = outages;
    setOrder(ORDER);
  }

  @Override
  public Pointcut getPointcut() {
    return methods;
  }

  @Override
  public Advice getAdvice() {
    return (MethodInterceptor) this::invoke;
  }

  @Override
  public void afterSingletonsInstantiated() {
    if (methods.anyFound() && clients.getIfAvailable() == null) {
      throw new StartupFailure(noClient());
    }
  }

  private @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
    Optional<LockedMethod> found = methods.find(invocation.getMethod(), targetClass);
    if (found.isEmpty()) {
      return invocation.proceed();
    }
    LockedMethod locked = found.get();
    Object[] args = invocation.getArguments();
    return call()
        .run(
            locked.request(target, args),
            lease -> {
              locked.passLease(args, lease);
              return invocation.proceed();
            },
            locked::skippedValue);
  }

  private LockedCall call() {
    LockedCall c = call;
    if (c == null) {
      LockClient client = clients.getIfAvailable();
      if (client == null) {
        throw new IllegalStateException(noClient());
      }
      LostLeaseAction onLost =
          Optional.ofNullable(properties.getIfAvailable())
              .map(LocksmithProperties::getOnLost)
              .orElse(LostLeaseAction.LOG);
      c =
          new LockedCall(
              client,
              onLost,
              observations.getIfAvailable(() -> ObservationRegistry.NOOP),
              outages.getIfAvailable(() -> new StoreOutage("the lock store")));
      call = c;
    }
    return c;
  }

  private static String noClient() {
    return "@Locked methods need a LockClient, and there is none: set locksmith.uri (such as"
        + " redis://localhost:6379 or jdbc:postgresql://host/db), or give the application a"
        + " DataSource, or define a LockClient bean";
  }
}
