package dev.locksmith.spring.internal;

import java.util.Objects;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The {@code locksmith} health indicator on Spring Boot 3.5: {@link LockStoreProbe}'s answer as the
 * Actuator's {@link Health}, UP or DOWN with the probe's details (the store, and the reason and
 * since when it is DOWN). It never throws: a store that fails or hangs is DOWN.
 */
public final class LockStoreHealthIndicator implements HealthIndicator, DisposableBean {

  private final LockStoreProbe probe;

  /** Reports what {@code probe} finds at each check; closes it with the application. */
  public LockStoreHealthIndicator(LockStoreProbe probe) {
    this.probe = Objects.requireNonNull(probe, "probe");
  }

  @Override
  public Health health() {
    LockStoreProbe.Answer answer = probe.check();
    return (answer.up() ? Health.up() : Health.down()).withDetails(answer.details()).build();
  }

  @Override
  public void destroy() {
    probe.close();
  }
}
