package dev.locksmith.spring.internal;

import dev.locksmith.spring.LocksmithAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootExceptionReporter;
import org.springframework.core.Ordered;

/**
 * Reports a failed startup caused by a {@link StartupFailure} in one ERROR line with its message,
 * instead of Spring Boot's "Application run failed" and a stack trace: the message already says
 * what is wrong and what to do. The whole exception is logged at DEBUG. Other failures are left to
 * Spring Boot. Registered in {@code META-INF/spring.factories}.
 */
public final class StartupFailureReporter implements SpringBootExceptionReporter, Ordered {

  // The logger users see the line under; named for the auto-configuration they configure.
  private static final Logger log = LoggerFactory.getLogger(LocksmithAutoConfiguration.class);

  /** Created by Spring Boot for each failed run. */
  public StartupFailureReporter() {}

  @Override
  public boolean reportException(Throwable failure) {
    StartupFailure cause = find(failure);
    if (cause == null) {
      return false;
    }
    log.error("Application run failed: {}", cause.getMessage());
    log.debug("Application run failed", failure);
    return true;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE; // before Spring Boot's failure analyzers
  }

  private static @Nullable StartupFailure find(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 64; depth++, t = t.getCause()) {
      if (t instanceof StartupFailure found) {
        return found;
      }
    }
    return null;
  }
}
