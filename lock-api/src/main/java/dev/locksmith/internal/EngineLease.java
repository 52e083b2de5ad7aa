package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LeaseLostException.Kind;
import dev.locksmith.LeaseLostListener;
import dev.locksmith.LockObserver;
import dev.locksmith.LockObserver.Operation;
import dev.locksmith.LockObserver.RenewalOutcome;
import dev.locksmith.LockObserver.Span;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's lease: one hold in the store, its renewal and expiry deadlines, and its listeners.
 *
 * <p>State moves once from ACTIVE to RELEASED or LOST, under this object's monitor; listeners are
 * told outside it. Validity is measured on {@link System#nanoTime()} from before the acquire was
 * sent, so the lease ends on this client no later than in the store; {@link #expiresAt()} is that
 * end read off the client's clock when asked.
 */
final class EngineLease implements Lease {

  private static final Logger log = LoggerFactory.getLogger(EngineLease.class);

  private enum State {
    ACTIVE,
    RELEASED,
    LOST
  }

  private final EngineClient client;
  private final LockKey key;
  private final String owner;
  private final long token;
  private final OwnerScope ownerScope;
  private final boolean autoRenew;
  private final boolean sessionBound;
  // A hash of its own: the identity hash the client's and the watchdog's sets would otherwise ask
  // for is made by the JVM on first use, and that showed in every acquire's profile.
  private final int hash = ThreadLocalRandom.current().nextInt();
  // When the acquire returned: a store granted the hold no later than this (releaseHeldAtLeast).
  private final long acquiredNanos = System.nanoTime();

  private State state = State.ACTIVE;
  private boolean releaseCalled;
  private @Nullable LeaseLostException lostReason;
  private final List<LeaseLostListener> listeners = new ArrayList<>();
  // Whether a renewal is queued or running; guarded by this.
  private boolean renewing;

  private volatile long leaseNanos;
  private volatile long validUntilNanos;
  private volatile long renewDueNanos;
  // expiresAt() as last computed, and the validUntilNanos it was computed for; guarded by this.
  private @Nullable Instant expiresAt;
  private long expiresAtFor;
  private volatile boolean suspended;
  private volatile @Nullable RuntimeException lastRenewalFailure;
  // The observer's span of the renewal in flight: set and ended on the watchdog's renewal thread.
  private Span renewalSpan = Span.NONE;

  EngineLease(
      EngineClient client,
      LockKey key,
      String owner,
      OwnerScope ownerScope,
      long token,
      Duration leaseTime,
      boolean autoRenew,
      long startNanos) {
    this.client = client;
    this.key = key;
    this.owner = owner;
    this.ownerScope = ownerScope;
    this.token = token;
    this.autoRenew = autoRenew;
    this.sessionBound = client.capabilities().contains(Capability.SESSION_BOUND);
    this.leaseNanos = leaseTime.toNanos();
    this.validUntilNanos = startNanos + leaseNanos;
    this.renewDueNanos = startNanos + leaseNanos / 3;
  }

  /** Hands the lease to the client's watchdog; called once it is registered with its client. */
  void start() {
    if (sessionBound) {
      return; // Held until release or session loss, which the store reports: nothing to watch.
    }
    synchronized (this) {
      if (state != State.ACTIVE) {
        return;
      }
    }
    client.watchdog().watch(this, autoRenew ? renewDueNanos : validUntilNanos);
  }

  LockKey key() {
    return key;
  }

  String owner() {
    return owner;
  }

  /** The hold's token as the store answered it, whether or not the store declares FENCING. */
  long token() {
    return token;
  }

  @Override
  public String name() {
    return key.name();
  }

  @Override
  public long fencingToken() {
    if (!client.capabilities().contains(Capability.FENCING)) {
      throw new UnsupportedCapabilityException(
          Capability.FENCING,
          client.storeName(),
          "it cannot make tokens that strictly increase across holders");
    }
    return token;
  }

  /**
   * When validity ends, on the options' clock: the clock is read when first asked (and again after
   * a renewal or extension), not on every acquire, where reading it showed in the profile.
   */
  @Override
  public Instant expiresAt() {
    if (sessionBound) {
      return Instant.MAX;
    }
    synchronized (this) {
      long validUntil = validUntilNanos;
      if (expiresAt == null || expiresAtFor != validUntil) {
        Instant now = client.options().clock().instant();
        expiresAt = now.plusNanos(validUntil - System.nanoTime());
        expiresAtFor = validUntil;
      }
      return expiresAt;
    }
  }

  /** The same hash for the lease's life, cheaper than the identity hash; equality is identity. */
  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public boolean isValid() {
    State s;
    synchronized (this) {
      s = state;
    }
    return s == State.ACTIVE
        && !suspended
        && (sessionBound ? client.sessionTrusted() : System.nanoTime() - validUntilNanos < 0);
  }

  @Override
  public void extend(Duration leaseTime) {
    Duration checked =
        InputRules.leaseTime(
            "leaseTime", leaseTime, client.timing().minimumLease(), client.storeName());
    synchronized (this) {
      throwIfEnded();
    }
    long start = System.nanoTime();
    boolean held = client.gateway().extend(key, owner, checked);
    if (!held) {
      LeaseLostException lost =
          new LeaseLostException(
              key.name(),
              Kind.NOT_HELD,
              "the store no longer holds it for this owner (it expired or was taken)");
      lose(lost);
      throw lost;
    }
    synchronized (this) {
      if (state != State.ACTIVE) {
        throwIfEnded();
      }
      leaseNanos = checked.toNanos();
      if (!sessionBound) {
        validUntilNanos = start + leaseNanos;
        renewDueNanos = start + leaseNanos / 3;
        client.watchdog().wakeBy(autoRenew ? renewDueNanos : validUntilNanos);
      }
    }
  }

  private void throwIfEnded() {
    if (releaseCalled && state != State.LOST && client.isClosed()) {
      throw new IllegalStateException(
          "lease on lock '" + key.name() + "' ended when its lock client was closed");
    }
    if (releaseCalled && state != State.LOST) {
      throw new IllegalStateException("lease on lock '" + key.name() + "' was already released");
    }
    if (state == State.LOST) {
      LeaseLostException reason = Objects.requireNonNull(lostReason);
      throw new LeaseLostException(key.name(), reason.kind(), reason.reason(), reason);
    }
  }

  @Override
  public void release() {
    if (!client.observed()) {
      releaseUnobserved();
      return;
    }
    Span span = client.observer().started(Operation.RELEASE, client.storeName(), key.name());
    LockObserver.ReleaseOutcome outcome = LockObserver.ReleaseOutcome.ERROR;
    try {
      if (!sessionBound && !releaseCalled()) {
        Duration remaining = Duration.ofNanos(Math.max(0, validUntilNanos - System.nanoTime()));
        client
            .observer()
            .releasedWithMargin(
                client.storeName(), key.name(), remaining, Duration.ofNanos(leaseNanos));
      }
      releaseUnobserved();
      outcome = LockObserver.ReleaseOutcome.RELEASED;
    } catch (LeaseLostException e) {
      outcome = LockObserver.ReleaseOutcome.LOST;
      throw e;
    } finally {
      span.ended(outcome);
    }
  }

  private synchronized boolean releaseCalled() {
    return releaseCalled;
  }

  private void releaseUnobserved() {
    boolean wasLost;
    synchronized (this) {
      if (releaseCalled) {
        return;
      }
      releaseCalled = true;
      wasLost = state == State.LOST;
      if (!wasLost) {
        state = State.RELEASED;
      }
      client.watchdog().unwatch(this);
    }
    client.forget(this);
    if (wasLost) {
      // Owner-checked, so it can only remove our own leftover hold and frees the lock sooner.
      client.releaseQuietly(key, owner);
      LeaseLostException reason = Objects.requireNonNull(lostReason);
      throw new LeaseLostException(key.name(), reason.kind(), reason.reason(), reason);
    }
    ReleaseOutcome outcome;
    try {
      outcome = client.gateway().release(key, owner);
    } catch (LockStoreException e) {
      // The hold may still be in the store (the request may never have reached it): keep asking
      // in the background, or a session-bound hold would live as long as the session does. Only
      // for an owner of this hold alone: for a caller's owner, a repeated release could end another
      // of its holds.
      if (ownerScope == OwnerScope.THIS_HOLD) {
        client.releaseUntilAnswered(
            key, owner, sessionBound ? LeaseWatchdog.NONE : validUntilNanos);
      }
      throw e;
    }
    if (outcome == ReleaseOutcome.NOT_HELD) {
      LeaseLostException lost =
          new LeaseLostException(
              key.name(),
              Kind.NOT_HELD,
              "the store no longer held it for this owner at release (it expired or was taken);"
                  + " nothing was released");
      fireLost(lost);
      throw lost;
    }
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public void releaseHeldAtLeast(Duration minimumHold) {
    long keepNanos = acquiredNanos + HeldAtLeast.check(minimumHold).toNanos() - System.nanoTime();
    synchronized (this) {
      if (keepNanos > 0 && !releaseCalled && state == State.ACTIVE) {
        releaseCalled = true;
        state = State.RELEASED;
        client.watchdog().unwatch(this);
      } else {
        keepNanos = 0; // Past the hold, released or lost: release() does, or reports, the rest.
      }
    }
    if (keepNanos <= 0) {
      release();
      return;
    }
    client.forget(this);
    if (!HeldAtLeast.keep(client, key, owner, keepNanos)) {
      LeaseLostException lost =
          new LeaseLostException(
              key.name(),
              Kind.NOT_HELD,
              "the store no longer held it for this owner when asked to keep it for its minimum"
                  + " hold (it expired or was taken); nothing was changed");
      fireLost(lost);
      throw lost;
    }
  }

  @Override
  public Lease onLost(LeaseLostListener listener) {
    Objects.requireNonNull(listener, "listener must not be null");
    LeaseLostException reason;
    synchronized (this) {
      if (state != State.LOST) {
        listeners.add(listener);
        return this;
      }
      reason = Objects.requireNonNull(lostReason);
    }
    notify(listener, reason);
    return this;
  }

  /** Marks the lease lost and tells the listeners, once; does nothing if it already ended. */
  void lose(LeaseLostException reason) {
    synchronized (this) {
      if (state != State.ACTIVE) {
        return;
      }
      // The reason goes with the state: a caller that sees LOST reads it (the observer below may
      // run for a while before the listeners are told).
      lostReason = reason;
      state = State.LOST;
      client.watchdog().unwatch(this);
    }
    client.forget(this);
    tellLost(reason);
  }

  /** Marks a released lease lost: the store answered that it no longer held it. */
  private void fireLost(LeaseLostException reason) {
    synchronized (this) {
      lostReason = reason;
      state = State.LOST;
    }
    tellLost(reason);
  }

  private void tellLost(LeaseLostException reason) {
    List<LeaseLostListener> toTell;
    synchronized (this) {
      toTell = new ArrayList<>(listeners);
      listeners.clear();
    }
    log.warn("Lease on lock '{}' (owner {}) lost: {}", key, owner, reason.reason());
    client.observer().leaseLost(client.storeName(), this, reason);
    for (LeaseLostListener l : toTell) {
      notify(l, reason);
    }
  }

  private void notify(LeaseLostListener l, LeaseLostException reason) {
    try {
      l.leaseLost(this, reason);
    } catch (RuntimeException e) {
      log.warn("A lease-lost listener of lock '{}' threw", key, e);
    }
  }

  void suspend() {
    if (!sessionBound) {
      return;
    }
    suspended = true;
    for (LeaseLostListener l : snapshotListeners()) {
      try {
        l.leaseSuspended(this);
      } catch (RuntimeException e) {
        log.warn("A lease listener of lock '{}' threw", key, e);
      }
    }
  }

  void resume() {
    if (!sessionBound || !suspended) {
      return;
    }
    suspended = false;
    for (LeaseLostListener l : snapshotListeners()) {
      try {
        l.leaseResumed(this);
      } catch (RuntimeException e) {
        log.warn("A lease listener of lock '{}' threw", key, e);
      }
    }
  }

  private synchronized List<LeaseLostListener> snapshotListeners() {
    return new ArrayList<>(listeners);
  }

  // The watchdog's side. tick() runs on its sweep thread, the renewal methods on its renewal
  // thread.

  /**
   * Looks at the lease at {@code now}: reports it lost if it ran out, hands a due renewal to the
   * renewal thread, and returns when it next needs looking at ({@link LeaseWatchdog#NONE} if
   * never).
   */
  long tick(long now) {
    boolean expired;
    boolean renewNow = false;
    synchronized (this) {
      if (state != State.ACTIVE) {
        return LeaseWatchdog.NONE;
      }
      expired = now - validUntilNanos >= 0;
      if (!expired && autoRenew && !renewing && now - renewDueNanos >= 0) {
        renewing = true;
        renewNow = true;
      }
    }
    if (expired) {
      loseByExpiry();
      return LeaseWatchdog.NONE;
    }
    if (renewNow) {
      client.watchdog().renew(this);
    }
    synchronized (this) {
      return autoRenew && !renewing && renewDueNanos - validUntilNanos < 0
          ? renewDueNanos
          : validUntilNanos;
    }
  }

  /**
   * What to ask the store for this lease's due renewal, or null if the lease ended meanwhile; the
   * renewal thread then reports the store's answer with {@link #renewed} or {@link #renewalFailed}.
   */
  @Nullable LeaseExtension renewal() {
    long due;
    synchronized (this) {
      if (state != State.ACTIVE) {
        renewing = false;
        return null;
      }
      due = renewDueNanos;
    }
    Duration lease = Duration.ofNanos(leaseNanos);
    if (client.observed()) {
      Duration late = Duration.ofNanos(Math.max(0, System.nanoTime() - due));
      client.observer().renewalDue(client.storeName(), key.name(), late, lease);
      renewalSpan = client.observer().started(Operation.RENEWAL, client.storeName(), key.name());
    }
    return new LeaseExtension(key, owner, lease);
  }

  /**
   * The store answered {@code renewal}, sent at {@code start}: {@code held} false means it no
   * longer holds this lease for its owner.
   */
  void renewed(LeaseExtension renewal, long start, boolean held) {
    lastRenewalFailure = null;
    if (!held) {
      observeRenewal(RenewalOutcome.LOST, start);
      synchronized (this) {
        renewing = false;
      }
      lose(
          new LeaseLostException(
              key.name(),
              Kind.NOT_HELD,
              "renewal found that the store no longer holds it for this owner (it expired or was"
                  + " taken)"));
      return;
    }
    long lease = renewal.leaseTime().toNanos();
    long due;
    synchronized (this) {
      if (state != State.ACTIVE) {
        renewing = false;
        observeRenewal(RenewalOutcome.RENEWED, start);
        return;
      }
      if (start + lease - validUntilNanos > 0) {
        validUntilNanos = start + lease;
      }
      renewDueNanos = start + lease / 3;
      due = renewDueNanos;
    }
    // Told once the lease took the renewal, so that a slow observer cannot let the lease run out
    // on a renewal the store already granted; the renewal counts as running until it is told, so
    // a slow observer delays the next one (which then shows as lag) instead of doubling it.
    observeRenewal(RenewalOutcome.RENEWED, start);
    synchronized (this) {
      renewing = false;
    }
    client.watchdog().wakeBy(due);
  }

  /** The store failed {@code renewal}, sent at {@code start}: retry soon, while the lease lasts. */
  void renewalFailed(LeaseExtension renewal, long start, RuntimeException failure) {
    lastRenewalFailure = failure;
    // The store may be back before the lease runs out: retry soon, but not in a tight loop.
    long lease = renewal.leaseTime().toNanos();
    long retry = Math.max(10_000_000L, Math.min(lease / 10, 1_000_000_000L));
    log.debug("Renewal of lock '{}' failed; retrying in {} ms", key, retry / 1_000_000, failure);
    long due = System.nanoTime() + retry;
    synchronized (this) {
      renewDueNanos = due;
    }
    observeRenewal(RenewalOutcome.FAILED, start);
    synchronized (this) {
      renewing = false;
    }
    client.watchdog().wakeBy(due);
  }

  private void observeRenewal(RenewalOutcome outcome, long start) {
    client
        .observer()
        .renewalEnded(
            client.storeName(), key.name(), outcome, Duration.ofNanos(System.nanoTime() - start));
    Span span = renewalSpan;
    renewalSpan = Span.NONE;
    span.ended(outcome);
  }

  private void loseByExpiry() {
    RuntimeException failure = lastRenewalFailure;
    if (failure != null) {
      lose(
          new LeaseLostException(
              key.name(),
              Kind.RENEWAL_FAILED,
              "renewal failed until the lease ran out (" + failure.getMessage() + ")",
              failure));
    } else {
      lose(
          new LeaseLostException(
              key.name(),
              Kind.EXPIRED,
              autoRenew
                  ? "it expired before a renewal succeeded"
                  : "it expired at " + expiresAt() + " without being extended or released"));
    }
  }

  @Override
  public String toString() {
    return "Lease{"
        + key
        + ", owner="
        + owner
        + ", token="
        + token
        + ", expiresAt="
        + expiresAt()
        + "}";
  }
}
