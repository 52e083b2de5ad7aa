package dev.locksmith.spring;

import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code locksmith.*} properties: which store, and the options of the {@link
 * dev.locksmith.LockClient} the starter builds.
 *
 * <p>Every setter checks its value with Locksmith's own rules, so a bad value fails startup with
 * Spring Boot's binding report naming the property ({@code locksmith.lease-time}) and the rule it
 * broke. Unknown properties under {@code locksmith.} fail startup too, so a typo is not silently
 * ignored.
 */
@ConfigurationProperties(prefix = "locksmith", ignoreUnknownFields = false)
public class LocksmithProperties {

  /** The URI of {@link #getUri()} that means: the Redis server Spring Data Redis is set up for. */
  public static final String SPRING_DATA_REDIS = "spring-data-redis";

  /**
   * The lock store: a Locksmith URI such as redis://host:6379, jdbc:postgresql://host/db or
   * zookeeper://host:2181/locks, or "spring-data-redis" for the Redis server of
   * spring.data.redis.*. When not set and the application has a single DataSource, locks live in a
   * table of that database.
   */
  private @Nullable String uri;

  /** How long a lease lasts unless renewed. Held leases are renewed at a third of it. */
  private Duration leaseTime = LockOptions.DEFAULT_LEASE_TIME;

  /** Whether held leases are renewed by the client's watchdog while held. */
  private boolean autoRenew = true;

  /** The owner id prefix shown in the store, so operators can tell who holds a lock. */
  private @Nullable String owner;

  /** The prefix put before every lock name in the store; each store has its default. */
  private @Nullable String keyPrefix;

  /** How a waiter that polls backs off between attempts. */
  private final Backoff backoff = new Backoff();

  /** What happens when a lease is lost while a @Locked method or LockTemplate action runs. */
  private LostLeaseAction onLost = LostLeaseAction.LOG;

  /**
   * What happens when the lock store cannot be reached at startup: "lenient" starts the application
   * without it (health DOWN, @Locked calls fail at once and scheduled @Locked jobs are skipped
   * until it answers; the client connects in the background), "strict" fails startup.
   */
  private StartupMode startup = StartupMode.LENIENT;

  /** The "locksmith" health indicator. */
  private final Health health = new Health();

  private final Metrics metrics = new Metrics();

  private final Observations observations = new Observations();

  public @Nullable String getUri() {
    return uri;
  }

  public void setUri(@Nullable String uri) {
    if (uri != null && uri.isBlank()) {
      throw new IllegalArgumentException(
          "locksmith.uri must not be blank; remove it to use the application's DataSource");
    }
    this.uri = uri == null ? null : uri.strip();
  }

  public Duration getLeaseTime() {
    return leaseTime;
  }

  public void setLeaseTime(Duration leaseTime) {
    check("locksmith.lease-time", b -> b.leaseTime(leaseTime));
    this.leaseTime = leaseTime;
  }

  public boolean isAutoRenew() {
    return autoRenew;
  }

  public void setAutoRenew(boolean autoRenew) {
    this.autoRenew = autoRenew;
  }

  public @Nullable String getOwner() {
    return owner;
  }

  public void setOwner(@Nullable String owner) {
    if (owner != null) {
      check("locksmith.owner", b -> b.owner(owner));
    }
    this.owner = owner;
  }

  public @Nullable String getKeyPrefix() {
    return keyPrefix;
  }

  public void setKeyPrefix(@Nullable String keyPrefix) {
    if (keyPrefix != null) {
      check("locksmith.key-prefix", b -> b.keyPrefix(keyPrefix));
    }
    this.keyPrefix = keyPrefix;
  }

  public Backoff getBackoff() {
    return backoff;
  }

  public LostLeaseAction getOnLost() {
    return onLost;
  }

  public void setOnLost(LostLeaseAction onLost) {
    this.onLost = onLost;
  }

  public StartupMode getStartup() {
    return startup;
  }

  public void setStartup(StartupMode startup) {
    if (startup == null) {
      throw new IllegalArgumentException("locksmith.startup must be lenient or strict");
    }
    this.startup = startup;
  }

  public Health getHealth() {
    return health;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Observations getObservations() {
    return observations;
  }

  /**
   * The {@link LockOptions} these properties stand for (the key prefix only where the store reads
   * it from the options: stores opened from {@link #getUri() uri}).
   *
   * @throws IllegalArgumentException naming the properties if they contradict each other
   */
  public LockOptions toOptions() {
    LockOptions.Builder b =
        LockOptions.builder()
            .leaseTime(leaseTime)
            .autoRenew(autoRenew)
            .backoffMin(backoff.min)
            .backoffMax(backoff.max);
    if (owner != null) {
      b.owner(owner);
    }
    if (keyPrefix != null && uri != null) {
      b.keyPrefix(keyPrefix);
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "locksmith.backoff.min and locksmith.backoff.max: " + e.getMessage(), e);
    }
  }

  private static void check(String property, Consumer<LockOptions.Builder> setting) {
    try {
      setting.accept(LockOptions.builder());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
    }
  }

  /** The {@code locksmith.backoff.*} properties. */
  public static class Backoff {

    /** The first pause of a polling waiter (jittered, doubling up to max). */
    private Duration min = LockOptions.DEFAULT_BACKOFF_MIN;

    /** The longest pause of a polling waiter. */
    private Duration max = LockOptions.DEFAULT_BACKOFF_MAX;

    public Duration getMin() {
      return min;
    }

    public void setMin(Duration min) {
      check("locksmith.backoff.min", b -> b.backoffMin(min));
      this.min = min;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      check("locksmith.backoff.max", b -> b.backoffMax(max));
      this.max = max;
    }
  }

  /** The {@code locksmith.health.*} properties. */
  public static class Health {

    /** The lock whose state the health check reads; it is never acquired. */
    private String probeLock = "locksmith-health-probe";

    /** How long the health check waits for the store's answer before reporting DOWN. */
    private Duration timeout = Duration.ofSeconds(2);

    /**
     * The renewal lag, as a fraction of the lease, past which the health check reports DOWN:
     * renewals are due at a third of the lease, so at 2/3 the lease runs out before the store hears
     * from the holder. 0.5 leaves a sixth of the lease. Set it above 1 to never go DOWN for lag.
     */
    private double renewalLagThreshold = 0.5;

    /** How long a lagging renewal keeps the health check DOWN (one to two of these). */
    private Duration renewalLagWindow = Duration.ofMinutes(1);

    public double getRenewalLagThreshold() {
      return renewalLagThreshold;
    }

    public void setRenewalLagThreshold(double renewalLagThreshold) {
      if (!(renewalLagThreshold > 0)) {
        throw new IllegalArgumentException(
            "locksmith.health.renewal-lag-threshold must be a positive fraction of the lease, was "
                + renewalLagThreshold);
      }
      this.renewalLagThreshold = renewalLagThreshold;
    }

    public Duration getRenewalLagWindow() {
      return renewalLagWindow;
    }

    public void setRenewalLagWindow(Duration renewalLagWindow) {
      if (renewalLagWindow == null || renewalLagWindow.isNegative() || renewalLagWindow.isZero()) {
        throw new IllegalArgumentException(
            "locksmith.health.renewal-lag-window must be positive, was " + renewalLagWindow);
      }
      this.renewalLagWindow = renewalLagWindow;
    }

    public String getProbeLock() {
      return probeLock;
    }

    public void setProbeLock(String probeLock) {
      if (probeLock == null || probeLock.isBlank()) {
        throw new IllegalArgumentException("locksmith.health.probe-lock must not be blank");
      }
      this.probeLock = probeLock;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException(
            "locksmith.health.timeout must be positive, was " + timeout);
      }
      this.timeout = timeout;
    }
  }

  /** The {@code locksmith.metrics.*} properties. */
  public static class Metrics {

    /**
     * How many lock names get a waiter gauge of their own (locksmith.waiters.by.name); waiters on
     * later names count under lock=_other. Lock names are the application's, so keep it small.
     */
    private int namedWaiters = 20;

    public int getNamedWaiters() {
      return namedWaiters;
    }

    public void setNamedWaiters(int namedWaiters) {
      if (namedWaiters < 0) {
        throw new IllegalArgumentException(
            "locksmith.metrics.named-waiters must not be negative, was " + namedWaiters);
      }
      this.namedWaiters = namedWaiters;
    }
  }

  /** The {@code locksmith.observations.*} properties. */
  public static class Observations {

    /**
     * Whether acquires, waits, renewals, releases and losses are Micrometer observations (spans,
     * with Micrometer Tracing) when the application has an ObservationRegistry.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
