package dev.locksmith;

import dev.locksmith.internal.InputRules;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a {@link LockClient}: lease time, auto-renew, owner id, key prefix, how waiters
 * back off, and the clock used to report expiry times.
 *
 * <p>Each option can also be set in the URI's query under the same name ({@code leaseTime=10s},
 * {@code autoRenew=false}, {@code owner=worker-1}, {@code keyPrefix=app:}, {@code backoffMin=5ms},
 * {@code backoffMax=50ms}); durations take a unit ({@code ms}, {@code s}, {@code m}, {@code h}) or
 * ISO-8601 ({@code PT10S}). Setting one option both in code and in the URI to different values is
 * an error, so configuration never silently loses. Instances are immutable; build them with {@link
 * #builder()}.
 */
public final class LockOptions {

  /** The longest lease a lock may be given. */
  public static final Duration MAX_LEASE_TIME = Duration.ofDays(7);

  /** The longest a bounded acquire may wait. */
  public static final Duration MAX_WAIT = Duration.ofDays(30);

  /** The lease time used when none is set. */
  public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

  /** The first pause of a polling waiter. */
  public static final Duration DEFAULT_BACKOFF_MIN = Duration.ofMillis(5);

  /** The longest pause of a polling waiter. */
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMillis(50);

  private static final LockOptions DEFAULTS = new Builder().build();

  private final @Nullable Duration leaseTime;
  private final @Nullable Boolean autoRenew;
  private final @Nullable String owner;
  private final @Nullable String keyPrefix;
  private final @Nullable Duration backoffMin;
  private final @Nullable Duration backoffMax;
  private final @Nullable Clock clock;
  private final @Nullable LockObserver observer;

  private LockOptions(Builder b) {
    this.leaseTime = b.leaseTime;
    this.autoRenew = b.autoRenew;
    this.owner = b.owner;
    this.keyPrefix = b.keyPrefix;
    this.backoffMin = b.backoffMin;
    this.backoffMax = b.backoffMax;
    this.clock = b.clock;
    this.observer = b.observer;
    if (backoffMin().compareTo(backoffMax()) > 0) {
      throw new IllegalArgumentException(
          "backoffMin ("
              + backoffMin().toMillis()
              + " ms) must not be longer than backoffMax ("
              + backoffMax().toMillis()
              + " ms)");
    }
  }

  /** The defaults: 30 s leases, auto-renewed, a random owner id per client, 5–50 ms backoff. */
  public static LockOptions defaults() {
    return DEFAULTS;
  }

  /** A builder that starts from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.leaseTime = leaseTime;
    b.autoRenew = autoRenew;
    b.owner = owner;
    b.keyPrefix = keyPrefix;
    b.backoffMin = backoffMin;
    b.backoffMax = backoffMax;
    b.clock = clock;
    b.observer = observer;
    return b;
  }

  /** How long a lease lasts unless renewed; {@link #DEFAULT_LEASE_TIME} when not set. */
  public Duration leaseTime() {
    return leaseTime != null ? leaseTime : DEFAULT_LEASE_TIME;
  }

  /** Whether held leases are renewed by the client's watchdog; true when not set. */
  public boolean autoRenew() {
    return autoRenew == null || autoRenew;
  }

  /**
   * The owner id prefix of the client, if one was set; a client's {@link LockClient#options()}
   * always has one ({@code pid<PID>} unless set). Each acquire still gets its own owner (this
   * prefix plus a unique suffix) unless {@link DistributedLock#withOwner} names one; the prefix
   * shows in the store so that operators can tell who holds a lock.
   */
  public Optional<String> owner() {
    return Optional.ofNullable(owner);
  }

  /**
   * The prefix put before every lock name in the store, if set; each store has its default, and a
   * client's {@link LockClient#options()} always reports the one in force. It is read by providers
   * when {@link LockClient#open(String, LockOptions)} builds the store; a store built by hand and
   * passed to {@link LockClient#of} takes its prefix in its own constructor, and {@code of} refuses
   * options that set a different one.
   */
  public Optional<String> keyPrefix() {
    return Optional.ofNullable(keyPrefix);
  }

  /** The first pause of a polling waiter. */
  public Duration backoffMin() {
    return backoffMin != null ? backoffMin : DEFAULT_BACKOFF_MIN;
  }

  /** The longest pause of a polling waiter. */
  public Duration backoffMax() {
    return backoffMax != null ? backoffMax : DEFAULT_BACKOFF_MAX;
  }

  /**
   * The clock used to report {@link Lease#expiresAt()}. It never decides whether a lock has
   * expired: stores judge expiry on their own clock, and validity on this client is measured with
   * {@link System#nanoTime()}.
   */
  public Clock clock() {
    return clock != null ? clock : Clock.systemUTC();
  }

  /**
   * The observer told of every acquire, renewal and loss of the client's leases; {@link
   * LockObserver#NONE} when not set.
   */
  public LockObserver observer() {
    return observer != null ? observer : LockObserver.NONE;
  }

  /**
   * These options with {@code other}'s explicitly set values added.
   *
   * @throws IllegalArgumentException if both set an option to different values
   */
  public LockOptions mergedWith(LockOptions other) {
    Builder b = toBuilder();
    b.leaseTime = merge("leaseTime", leaseTime, other.leaseTime);
    b.autoRenew = merge("autoRenew", autoRenew, other.autoRenew);
    b.owner = merge("owner", owner, other.owner);
    b.keyPrefix = merge("keyPrefix", keyPrefix, other.keyPrefix);
    b.backoffMin = merge("backoffMin", backoffMin, other.backoffMin);
    b.backoffMax = merge("backoffMax", backoffMax, other.backoffMax);
    b.clock = merge("clock", clock, other.clock);
    b.observer = merge("observer", observer, other.observer);
    return b.build();
  }

  private static <T> @Nullable T merge(String name, @Nullable T mine, @Nullable T theirs) {
    if (mine != null && theirs != null && !mine.equals(theirs)) {
      throw new IllegalArgumentException(
          "option '" + name + "' is set twice, to " + mine + " and to " + theirs + "; set it once");
    }
    return mine != null ? mine : theirs;
  }

  @Override
  public String toString() {
    return "LockOptions{leaseTime="
        + leaseTime()
        + ", autoRenew="
        + autoRenew()
        + ", owner="
        + owner
        + ", keyPrefix="
        + (keyPrefix == null ? null : "'" + keyPrefix + "'")
        + ", backoff="
        + backoffMin().toMillis()
        + ".."
        + backoffMax().toMillis()
        + "ms}";
  }

  /** Builds {@link LockOptions}; every setter checks its argument at once. */
  public static final class Builder {
    private @Nullable Duration leaseTime;
    private @Nullable Boolean autoRenew;
    private @Nullable String owner;
    private @Nullable String keyPrefix;
    private @Nullable Duration backoffMin;
    private @Nullable Duration backoffMax;
    private @Nullable Clock clock;
    private @Nullable LockObserver observer;

    private Builder() {}

    /**
     * How long a lease lasts unless renewed.
     *
     * @throws IllegalArgumentException if not positive or longer than {@link #MAX_LEASE_TIME}
     */
    public Builder leaseTime(Duration leaseTime) {
      this.leaseTime = InputRules.leaseTime("leaseTime", leaseTime);
      return this;
    }

    /** Whether held leases are renewed at a third of their lease time. */
    public Builder autoRenew(boolean autoRenew) {
      this.autoRenew = autoRenew;
      return this;
    }

    /**
     * The owner id prefix (at most 64 UTF-8 bytes, no control characters).
     *
     * @throws IllegalArgumentException if blank, too long, or has control characters
     */
    public Builder owner(String owner) {
      this.owner = InputRules.ownerPrefix(owner);
      return this;
    }

    /**
     * The prefix put before every lock name in the store (at most 64 UTF-8 bytes).
     *
     * @throws IllegalArgumentException if too long or has control characters
     */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = InputRules.keyPrefix(keyPrefix);
      return this;
    }

    /**
     * The first and longest pause of a polling waiter (jittered, doubling from {@code min} up to
     * {@code max}).
     *
     * @throws IllegalArgumentException if not positive, {@code min > max}, or {@code max} over a
     *     minute
     */
    public Builder backoff(Duration min, Duration max) {
      Duration lo = InputRules.backoff("backoffMin", min);
      Duration hi = InputRules.backoff("backoffMax", max);
      if (lo.compareTo(hi) > 0) {
        throw new IllegalArgumentException(
            "backoffMin ("
                + lo.toMillis()
                + " ms) must not be longer than backoffMax ("
                + hi.toMillis()
                + " ms)");
      }
      this.backoffMin = lo;
      this.backoffMax = hi;
      return this;
    }

    /** Sets only the first pause; see {@link #backoff}. */
    public Builder backoffMin(Duration min) {
      this.backoffMin = InputRules.backoff("backoffMin", min);
      return this;
    }

    /** Sets only the longest pause; see {@link #backoff}. */
    public Builder backoffMax(Duration max) {
      this.backoffMax = InputRules.backoff("backoffMax", max);
      return this;
    }

    /** The clock used to report expiry times (never to judge expiry). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock must not be null");
      return this;
    }

    /**
     * The observer told of every acquire, renewal and loss (for metrics and tracing); see {@link
     * LockObserver}. One per client: to have several, call them from one.
     */
    public Builder observer(LockObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer must not be null");
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException if backoffMin is longer than backoffMax
     */
    public LockOptions build() {
      return new LockOptions(this);
    }
  }
}
