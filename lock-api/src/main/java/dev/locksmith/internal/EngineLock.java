package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockObserver.AcquireOutcome;
import dev.locksmith.LockObserver.Operation;
import dev.locksmith.LockObserver.Span;
import dev.locksmith.LockStoreException;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.QueuedAttempt;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link DistributedLock}: the one place where acquiring and waiting happen, for every
 * store.
 *
 * <p>An attempt asks the store once; if the lock is busy it waits for the store's release
 * notification where the store pushes one, else for a jittered, doubling pause, and asks again
 * until its deadline. Stores that keep a fair queue are waited on through the queue instead. A
 * store call whose outcome is unknown (it failed, or the thread was interrupted during it) is
 * followed by an owner-checked release, so no orphan hold is left behind.
 */
final class EngineLock implements DistributedLock {

  private static final Logger log = LoggerFactory.getLogger(EngineLock.class);

  /** No deadline: wait as long as it takes. */
  static final long FOREVER = Long.MAX_VALUE;

  private final EngineClient client;
  private final LockKey key;
  private final Duration leaseTime;
  private final boolean autoRenew;
  private final @Nullable String owner;

  EngineLock(EngineClient client, LockKey key) {
    this(client, key, client.options().leaseTime(), client.options().autoRenew(), null);
  }

  private EngineLock(
      EngineClient client,
      LockKey key,
      Duration leaseTime,
      boolean autoRenew,
      @Nullable String owner) {
    this.client = client;
    this.key = key;
    this.leaseTime = leaseTime;
    this.autoRenew = autoRenew;
    this.owner = owner;
  }

  @Override
  public String name() {
    return key.name();
  }

  @Override
  public Optional<Lease> tryAcquire() {
    return Optional.ofNullable(attemptDeferringInterrupts(0, null));
  }

  /**
   * Acquires within {@code waitNanos} as lock() and tryLock() do: an interrupt neither ends the
   * attempt nor is lost (the caller finds the flag set afterwards).
   */
  @Nullable EngineLease attemptDeferringInterrupts(long waitNanos, @Nullable String ownerOverride) {
    try {
      return attempt(waitNanos, Interrupts.DEFERRED, ownerOverride);
    } catch (InterruptedException e) {
      // Not reachable: a deferred interrupt never ends an attempt.
      Thread.currentThread().interrupt();
      throw new IllegalStateException("an attempt that defers interrupts was interrupted", e);
    }
  }

  @Override
  public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
    return Optional.ofNullable(attempt(InputRules.wait(wait).toNanos(), Interrupts.HONOURED, null));
  }

  @Override
  public Lease acquire() throws InterruptedException {
    EngineLease lease = attempt(FOREVER, Interrupts.HONOURED, null);
    if (lease == null) {
      throw new IllegalStateException("an unbounded acquire returned without a lease");
    }
    return lease;
  }

  @Override
  public Lease acquire(Duration wait) throws InterruptedException {
    EngineLease lease = attempt(InputRules.wait(wait).toNanos(), Interrupts.HONOURED, null);
    if (lease == null) {
      throw new LockTimeoutException(key.name(), wait);
    }
    return lease;
  }

  @Override
  public boolean isLocked() {
    client.ensureOpen();
    return client.gateway().read(key).locked();
  }

  @Override
  public DistributedLock withLeaseTime(Duration leaseTime) {
    Duration checked =
        InputRules.leaseTime(
            "leaseTime", leaseTime, client.timing().minimumLease(), client.storeName());
    return new EngineLock(client, key, checked, autoRenew, owner);
  }

  @Override
  public DistributedLock withAutoRenew(boolean autoRenew) {
    return new EngineLock(client, key, leaseTime, autoRenew, owner);
  }

  @Override
  public DistributedLock withOwner(String owner) {
    String checked = InputRules.owner(owner);
    client.require(Capability.REENTRANCY, "it cannot give one owner nested holds");
    return new EngineLock(client, key, leaseTime, autoRenew, checked);
  }

  @Override
  public ThreadOwnedLock asLock() {
    client.ensureOpen();
    return new ThreadLockView(this, client.threadHolds(key));
  }

  /**
   * Acquires within {@code waitNanos} ({@link #FOREVER} for no limit).
   *
   * @param interrupts whether an interrupt ends the attempt, or is set aside and restored
   * @param ownerOverride the owner to acquire as (the thread view's), or null for this lock's
   * @return the lease, or null if the wait ran out
   */
  @Nullable EngineLease attempt(
      long waitNanos, Interrupts interrupts, @Nullable String ownerOverride)
      throws InterruptedException {
    if (!client.observed()) {
      return attemptUnobserved(waitNanos, interrupts, ownerOverride);
    }
    // Every acquire path passes here once: tell the client's observer how it ended.
    Span span = client.observer().started(Operation.ACQUIRE, client.storeName(), key.name());
    long start = System.nanoTime();
    AcquireOutcome outcome = AcquireOutcome.ERROR;
    try {
      EngineLease lease = attemptUnobserved(waitNanos, interrupts, ownerOverride);
      outcome =
          lease != null
              ? AcquireOutcome.ACQUIRED
              : waitNanos == 0 ? AcquireOutcome.BUSY : AcquireOutcome.TIMEOUT;
      return lease;
    } catch (InterruptedException e) {
      outcome = AcquireOutcome.INTERRUPTED;
      throw e;
    } finally {
      client
          .observer()
          .acquireEnded(
              client.storeName(), key.name(), outcome, Duration.ofNanos(System.nanoTime() - start));
      span.ended(outcome);
    }
  }

  private @Nullable EngineLease attemptUnobserved(
      long waitNanos, Interrupts interrupts, @Nullable String ownerOverride)
      throws InterruptedException {
    client.ensureOpen();
    if (interrupts == Interrupts.HONOURED) {
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted before acquiring lock '" + key.name() + "'");
      }
      return attemptWith(waitNanos, Interrupts.HONOURED, ownerOverride);
    }
    // As ReentrantLock.tryLock() and lock(): an earlier interrupt neither stops the attempt nor
    // reaches the store driver (which would refuse to work); the caller finds the flag still set.
    boolean pending = Thread.interrupted();
    try {
      return attemptWith(waitNanos, Interrupts.DEFERRED, ownerOverride);
    } finally {
      if (pending) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private @Nullable EngineLease attemptWith(
      long waitNanos, Interrupts interrupts, @Nullable String ownerOverride)
      throws InterruptedException {
    // A fresh owner is used for this attempt only (the default, and the thread view's), so undoing
    // an attempt of unknown outcome can only touch that attempt's own hold.
    OwnerScope scope =
        ownerOverride != null || owner == null ? OwnerScope.THIS_HOLD : OwnerScope.CALLER;
    String who =
        ownerOverride != null ? ownerOverride : owner != null ? owner : client.newOwner("");
    long deadline = waitNanos == FOREVER ? FOREVER : System.nanoTime() + waitNanos;
    if (waitNanos > 0) {
      Optional<QueuedAttempt> queued = enqueue(who, scope, interrupts);
      if (queued.isPresent()) {
        return waitInQueue(queued.get(), who, scope, deadline, interrupts);
      }
    }
    return poll(who, scope, deadline, interrupts);
  }

  /**
   * What one wait has done that its end must undo, whichever way it ends: a place in the store's
   * queue, a release subscription, a waiting writer's mark, an interrupt set aside.
   */
  private final class Wait {
    private String who;
    // Whether `who` is this attempt's own owner id (THIS_HOLD), whose hold may be released blindly.
    private final OwnerScope scope;
    private final Interrupts interrupts;
    private @Nullable QueuedAttempt queued;
    private @Nullable AutoCloseable subscription;
    private boolean busySeen;
    private boolean acquired;
    private boolean interruptedMeanwhile;
    private @Nullable WakeSignal signal;
    // When the observer was told this wait started; 0 if it was not.
    private long waitStartNanos;

    Wait(String who, OwnerScope scope, Interrupts interrupts) {
      this.who = who;
      this.scope = scope;
      this.interrupts = interrupts;
    }

    /** Waits up to {@code nanos} for {@code signal}; lock() sets an interrupt aside instead. */
    void pause(WakeSignal signal, long nanos) throws InterruptedException {
      try {
        signal.await(nanos);
      } catch (InterruptedException e) {
        if (interrupts == Interrupts.HONOURED) {
          throw e;
        }
        interruptedMeanwhile = true;
      }
    }

    /** Makes {@code s} the wake-up of this wait, which the client signals when it closes. */
    void signal(WakeSignal s) {
      signal = s;
      client.waiting(s);
    }

    /** The lock was found taken and the caller waits: the observer hears it once per wait. */
    void waiting() {
      if (waitStartNanos == 0 && client.observed()) {
        waitStartNanos = System.nanoTime() | 1; // never 0, which means "not told"
        client.observer().waitStarted(client.storeName(), key.name());
      }
    }

    /** The lease of an acquire that succeeded: nothing of the wait is undone then. */
    EngineLease acquired(Acquisition a, long start) {
      acquired = true;
      return newLease(who, scope, a, start);
    }

    /** Undoes what the wait did; {@code outcome} is how the acquire that waited ended. */
    void end(AcquireOutcome outcome) {
      if (signal != null) {
        client.doneWaiting(signal);
      }
      if (waitStartNanos != 0) {
        client
            .observer()
            .waitEnded(
                client.storeName(),
                key.name(),
                outcome,
                Duration.ofNanos(System.nanoTime() - waitStartNanos));
      }
      if (queued != null && !acquired) {
        leaveQueue(queued, who, scope);
      }
      if (subscription != null) {
        closeQuietly(subscription);
      }
      // A busy write attempt may have marked a waiting writer that keeps readers out: clear it.
      if (busySeen && !acquired && key.mode() == LockMode.WRITE) {
        withdrawQuietly(who);
      }
      if (interruptedMeanwhile) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private @Nullable EngineLease poll(
      String firstOwner, OwnerScope scope, long deadline, Interrupts interrupts)
      throws InterruptedException {
    Wait wait = new Wait(firstOwner, scope, interrupts);
    AcquireOutcome outcome = AcquireOutcome.ERROR;
    try {
      EngineLease lease = poll(wait, deadline);
      outcome = lease != null ? AcquireOutcome.ACQUIRED : AcquireOutcome.TIMEOUT;
      return lease;
    } catch (InterruptedException e) {
      outcome = AcquireOutcome.INTERRUPTED;
      throw e;
    } finally {
      wait.end(outcome);
    }
  }

  private @Nullable EngineLease poll(Wait wait, long deadline) throws InterruptedException {
    // Made at the first busy answer: most acquires succeed at once and never wait.
    Backoff backoff = null;
    WakeSignal signal = null;
    while (true) {
      long start = System.nanoTime();
      Acquisition a;
      client.startAcquireCall();
      try {
        try {
          a = callTryAcquire(wait.who, wait.scope);
        } catch (InterruptedException e) {
          if (wait.interrupts == Interrupts.HONOURED) {
            throw e;
          }
          // lock() is not interruptible: remember the interrupt and keep trying, as a new owner,
          // since the interrupted attempt's hold is being undone in the background.
          wait.interruptedMeanwhile = true;
          wait.who = client.newOwner("");
          a = Acquisition.busy();
        }
        if (a.isAcquired()) {
          return wait.acquired(a, start);
        }
      } finally {
        client.endAcquireCall();
      }
      wait.busySeen = true;
      long remaining = remaining(deadline);
      if (remaining <= 0) {
        return null;
      }
      wait.waiting();
      if (signal == null) {
        backoff = new Backoff(client.options().backoffMin(), client.options().backoffMax());
        signal = new WakeSignal();
        wait.signal(signal);
      }
      if (wait.subscription == null && client.capabilities().contains(Capability.WAKE_ON_RELEASE)) {
        wait.subscription = subscribe(signal);
        if (wait.subscription != null) {
          // Ask again at once: a release between the busy answer and the subscription is missed.
          continue;
        }
      }
      long pause = Math.min(Objects.requireNonNull(backoff).nextNanos(a.retryAfter()), remaining);
      wait.pause(signal, pause);
    }
  }

  private Optional<QueuedAttempt> enqueue(String who, OwnerScope scope, Interrupts interrupts)
      throws InterruptedException {
    // lock() is not interruptible: an interrupt that came before must not cut this call short.
    boolean setAside = interrupts == Interrupts.DEFERRED && Thread.interrupted();
    try {
      return client.gateway().enqueue(key, who, leaseTime);
    } catch (RuntimeException e) {
      if (scope == OwnerScope.THIS_HOLD) {
        client.releaseQuietly(key, who);
      }
      throw failure(e);
    } finally {
      if (setAside) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private @Nullable EngineLease waitInQueue(
      QueuedAttempt queued, String who, OwnerScope scope, long deadline, Interrupts interrupts)
      throws InterruptedException {
    Wait wait = new Wait(who, scope, interrupts);
    wait.queued = queued;
    AcquireOutcome outcome = AcquireOutcome.ERROR;
    try {
      EngineLease lease = waitInQueue(queued, wait, deadline);
      outcome = lease != null ? AcquireOutcome.ACQUIRED : AcquireOutcome.TIMEOUT;
      return lease;
    } catch (InterruptedException e) {
      outcome = AcquireOutcome.INTERRUPTED;
      throw e;
    } finally {
      wait.end(outcome);
    }
  }

  private @Nullable EngineLease waitInQueue(QueuedAttempt queued, Wait wait, long deadline)
      throws InterruptedException {
    WakeSignal signal = new WakeSignal();
    wait.signal(signal);
    while (true) {
      long start = System.nanoTime();
      Acquisition a;
      client.startAcquireCall();
      try {
        try {
          client.gateway().awaitChange(queued, key, signal::signal);
          a = client.gateway().poll(queued, key);
        } catch (RuntimeException e) {
          InterruptedException interrupted = failure(e);
          if (wait.interrupts == Interrupts.HONOURED) {
            throw interrupted;
          }
          // lock() is not interruptible: remember the interrupt and keep our place in the queue.
          wait.interruptedMeanwhile = true;
          continue;
        }
        if (a.isAcquired()) {
          return wait.acquired(a, start);
        }
      } finally {
        client.endAcquireCall();
      }
      long remaining = remaining(deadline);
      if (remaining <= 0) {
        return null;
      }
      wait.waiting();
      // The queue signals when our predecessor leaves; the cap guards against a lost signal, and
      // the hint against a holder that expires rather than releases (nobody signals that).
      long pause = Math.min(remaining, client.options().backoffMax().toNanos() * 20);
      if (a.retryAfter() != null) {
        pause = Math.min(pause, Math.max(0, InputRules.saturatedNanos(a.retryAfter())) + 1_000_000);
      }
      wait.pause(signal, pause);
    }
  }

  /** Gives up a place in the queue; an interrupt does not stop it (the caller keeps the flag). */
  private void leaveQueue(QueuedAttempt queued, String who, OwnerScope scope) {
    boolean interrupted = Thread.interrupted();
    try {
      client.gateway().leave(queued, key);
    } catch (RuntimeException e) {
      log.debug("Leaving the queue of lock '{}' failed", key, e);
      if (scope == OwnerScope.THIS_HOLD) {
        client.releaseQuietly(key, who);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Acquisition callTryAcquire(String who, OwnerScope scope) throws InterruptedException {
    try {
      return client.gateway().tryAcquire(key, who, leaseTime);
    } catch (RuntimeException e) {
      // The store may have taken the lock before failing to answer: undo it for a fresh owner.
      // An interrupted call met a working store: undo at once, so nothing outlives the call. A
      // failed store is undone in the background, so that it costs the caller one timeout, not two.
      if (scope == OwnerScope.THIS_HOLD && Thread.currentThread().isInterrupted()) {
        client.releaseQuietly(key, who);
      } else if (scope == OwnerScope.THIS_HOLD) {
        client.releaseInBackground(key, who);
      }
      throw failure(e);
    }
  }

  /**
   * What a failed store call during an acquire becomes: an {@link InterruptedException} if the
   * thread was interrupted (the call was cut short by it, not by the store), else a {@link
   * LockStoreException}.
   */
  private InterruptedException failure(RuntimeException e) throws InterruptedException {
    if (Thread.interrupted()) {
      InterruptedException ie =
          new InterruptedException("interrupted while acquiring lock '" + key.name() + "'");
      ie.initCause(e);
      return ie;
    }
    throw client.gateway().failure("acquire", key, e);
  }

  private EngineLease newLease(String who, OwnerScope scope, Acquisition a, long start) {
    EngineLease lease =
        new EngineLease(client, key, who, scope, a.token(), leaseTime, autoRenew, start);
    client.register(lease);
    return lease;
  }

  private @Nullable AutoCloseable subscribe(WakeSignal signal) {
    try {
      return client.gateway().onRelease(key, signal::signal).orElse(null);
    } catch (RuntimeException e) {
      log.debug("Could not subscribe to releases of lock '{}'; polling instead", key, e);
      return null;
    }
  }

  private void withdrawQuietly(String who) {
    try {
      client.gateway().withdraw(key, who);
    } catch (RuntimeException e) {
      log.debug("Withdrawing the waiting writer of lock '{}' failed", key, e);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.debug("Closing a release subscription failed", e);
    }
  }

  private static long remaining(long deadline) {
    return deadline == FOREVER ? FOREVER : deadline - System.nanoTime();
  }

  EngineClient client() {
    return client;
  }

  @Override
  public String toString() {
    return "DistributedLock{" + key + " on " + client.storeName() + "}";
  }
}
