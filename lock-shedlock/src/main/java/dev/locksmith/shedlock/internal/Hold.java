package dev.locksmith.shedlock.internal;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import net.javacrumbs.shedlock.support.LockException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ShedLock lock taken in a Locksmith store: the {@link Lease} (not renewed), the {@code
 * lockAtMostFor} deadline at which the provider ends it, and the {@code lockAtLeastFor} deadline
 * its unlock must respect. Every {@link HeldLock} made by extending it shares it.
 *
 * <p>Deadlines are on {@link System#nanoTime()}, measured from before the acquire (or extend) was
 * sent: the store's lease, measured by the engine from a later moment and at least as long, never
 * ends before the provider's {@code lockAtMostFor}, so the provider is the one that ends it where
 * the store would hold it longer (a store whose shortest lease is longer, a store with whole-second
 * expiry, or ZooKeeper, whose holds live as long as the session).
 *
 * <p>State moves from HELD to UNLOCKED, EXPIRED or LOST once, under this object's monitor; store
 * calls made under it touch this hold only.
 */
public final class Hold {

  private static final Logger log = LoggerFactory.getLogger(Hold.class);

  private enum State {
    /** Held for the job. */
    HELD,
    /** The job unlocked it; it may still be kept in the store for its lockAtLeastFor. */
    UNLOCKED,
    /** lockAtMostFor passed before the unlock: the provider released it. */
    EXPIRED,
    /** The store no longer held it for this owner when asked (expired, or taken). */
    LOST
  }

  private final Lease lease;
  private final DistributedLock lock;
  private final HoldTimers timers;
  private final ShortestLease shortest;
  private final long acquireStartNanos;

  private State state = State.HELD;
  private long atMostDeadline;
  private long atLeastDeadline;
  // After an unlock whose lockAtLeastFor is shorter than the store's shortest lease: the moment
  // this provider releases it (the store's lease, ending later, covers a crash before then).
  private boolean releaseAtLeastDeadline;
  private @Nullable ScheduledFuture<?> timer;
  private boolean unlockCalled;

  /**
   * A hold on {@code lease}, whose acquire was sent at {@code acquireStartNanos}; call {@link
   * #start()} next.
   */
  public Hold(
      Lease lease,
      DistributedLock lock,
      HoldTimers timers,
      ShortestLease shortest,
      long acquireStartNanos,
      Duration lockAtMostFor,
      Duration lockAtLeastFor) {
    this.lease = lease;
    this.lock = lock;
    this.timers = timers;
    this.shortest = shortest;
    this.acquireStartNanos = acquireStartNanos;
    this.atMostDeadline = acquireStartNanos + lockAtMostFor.toNanos();
    this.atLeastDeadline = acquireStartNanos + lockAtLeastFor.toNanos();
  }

  /** Arms the lockAtMostFor timer. */
  public synchronized void start() {
    timer = timers.schedule(this, atMostDeadline);
  }

  /** The lock's name in the store (with the provider's prefix). */
  public String storeName() {
    return lock.name();
  }

  /**
   * Whether the job still holds it: not unlocked, not past lockAtMostFor, not lost, and its lease
   * still valid on this client.
   */
  boolean heldForJob() {
    synchronized (this) {
      if (state != State.HELD || unlockCalled) {
        return false;
      }
    }
    return lease.isValid();
  }

  /** The lease's fencing token; see {@link Lease#fencingToken()}. */
  long fencingToken() {
    return lease.fencingToken();
  }

  /**
   * Extends the hold to {@code lockAtMostFor} from now, and its lockAtLeastFor to {@code
   * lockAtLeastFor} from now, as ShedLock's {@code extend} does.
   *
   * @return false if it was no longer held: its lockAtMostFor had passed, or the store had lost it
   * @throws LockException if the store failed; the hold keeps its previous deadlines
   */
  synchronized boolean extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
    if (state != State.HELD) {
      return false;
    }
    long now = System.nanoTime();
    if (now - atMostDeadline >= 0) {
      expire();
      return false;
    }
    try {
      lease.extend(shortest.storeLeaseFor(lockAtMostFor));
    } catch (LeaseLostException e) {
      lose(e);
      return false;
    } catch (LockStoreException e) {
      throw new LockException(
          "could not extend ShedLock lock '" + storeName() + "': " + e.getMessage(), e);
    }
    atMostDeadline = now + lockAtMostFor.toNanos();
    atLeastDeadline = now + lockAtLeastFor.toNanos();
    cancelTimer();
    timer = timers.schedule(this, atMostDeadline);
    return true;
  }

  /**
   * Ends the job's hold: released now, or kept in the store until its lockAtLeastFor deadline.
   * After lockAtMostFor (the provider released it then) or a loss, there is nothing left to do.
   *
   * @throws LockException if the store failed; the hold then ends no later than its store lease
   */
  synchronized void unlock() {
    unlockCalled = true;
    if (state != State.HELD) {
      return; // Expired or lost (logged then), or an unlock whose store call failed before.
    }
    cancelTimer();
    long now = System.nanoTime();
    if (now - atMostDeadline >= 0) {
      expire();
      return;
    }
    state = State.UNLOCKED;
    long keepNanos = atLeastDeadline - now;
    if (keepNanos <= 0) {
      timers.forget(this);
      release();
      return;
    }
    if (!shortest.accepts(Duration.ofNanos(keepNanos))) {
      // The store cannot keep it for so short a time (its expiry would end much later): this
      // provider releases it at the deadline; if this process dies first, the store lease, which
      // lasts to lockAtMostFor at least, frees it later, never sooner.
      releaseAtLeastDeadline = true;
      timer = timers.schedule(this, atLeastDeadline);
      return;
    }
    timers.forget(this);
    // Measured from the engine's acquire, which is later than acquireStartNanos: held at least
    // until atLeastDeadline.
    endWith(() -> lease.releaseHeldAtLeast(Duration.ofNanos(atLeastDeadline - acquireStartNanos)));
  }

  /** The timer thread's entry: does what is due, or waits again if woken early. */
  void onTimer() {
    synchronized (this) {
      timer = null;
      if (!settleIfDue()) {
        long due = pendingDeadline();
        if (due != Long.MIN_VALUE) {
          timer = timers.schedule(this, due);
        }
      }
    }
  }

  /**
   * Does the due action, if one is due: releases a held lock whose lockAtMostFor has passed, or an
   * unlocked one whose lockAtLeastFor has.
   *
   * @return false if an action is pending and not yet due
   */
  synchronized boolean settleIfDue() {
    long now = System.nanoTime();
    if (state == State.HELD) {
      if (now - atMostDeadline < 0) {
        return false;
      }
      cancelTimer();
      expire();
    } else if (state == State.UNLOCKED && releaseAtLeastDeadline) {
      if (now - atLeastDeadline < 0) {
        return false;
      }
      cancelTimer();
      releaseAtLeastDeadline = false;
      timers.forget(this);
      releaseQuietly();
    } else {
      timers.forget(this);
    }
    return true;
  }

  /**
   * The provider is closing: an unlocked hold this provider was to release at its lockAtLeastFor
   * deadline is left to the store until then instead ({@link Lease#releaseHeldAtLeast}, rounded up
   * to the store's shortest lease), where closing the client cannot end it early.
   */
  synchronized void handOff() {
    if (state != State.UNLOCKED || !releaseAtLeastDeadline) {
      return;
    }
    cancelTimer();
    releaseAtLeastDeadline = false;
    try {
      lease.releaseHeldAtLeast(Duration.ofNanos(atLeastDeadline - acquireStartNanos));
    } catch (LeaseLostException e) {
      log.debug("ShedLock lock '{}' was lost before its lockAtLeastFor ended", storeName(), e);
    } catch (LockStoreException | IllegalStateException e) {
      log.warn(
          "ShedLock lock '{}' could not be left to the store for its lockAtLeastFor; it ends with"
              + " its store lease",
          storeName(),
          e);
    }
  }

  private long pendingDeadline() {
    if (state == State.HELD) {
      return atMostDeadline;
    }
    if (state == State.UNLOCKED && releaseAtLeastDeadline) {
      return atLeastDeadline;
    }
    return Long.MIN_VALUE;
  }

  /** lockAtMostFor has passed: ShedLock's contract is that the lock is no longer held. */
  private void expire() {
    state = State.EXPIRED;
    timers.forget(this);
    try {
      lease.release();
      log.warn(
          "ShedLock lock '{}' reached its lockAtMostFor before its unlock and was released:"
              + " another node may run the job now",
          storeName());
    } catch (LeaseLostException e) {
      // The store's own expiry came first (the engine has logged the loss).
      log.debug("ShedLock lock '{}' had expired in the store already", storeName(), e);
    } catch (LockStoreException e) {
      log.warn(
          "ShedLock lock '{}' reached its lockAtMostFor but could not be released ({}); it frees"
              + " itself when its store lease ends",
          storeName(),
          e.getMessage());
    } catch (IllegalStateException e) {
      log.debug("ShedLock lock '{}' ended with its client", storeName(), e);
    }
  }

  private void lose(LeaseLostException e) {
    state = State.LOST;
    cancelTimer();
    timers.forget(this);
    log.warn("ShedLock lock '{}' could not be extended: {}", storeName(), e.reason());
  }

  private void release() {
    endWith(lease::release);
  }

  /**
   * Ends the hold with {@code end}: a loss is logged (the job ran unprotected), a failure thrown.
   */
  private void endWith(Runnable end) {
    try {
      end.run();
    } catch (LeaseLostException e) {
      log.warn(
          "ShedLock lock '{}' was lost before its unlock ({}): the job was not protected to the"
              + " end",
          storeName(),
          e.reason());
    } catch (LockStoreException e) {
      throw new LockException(
          "could not unlock ShedLock lock '"
              + storeName()
              + "' (it frees itself when its lease ends): "
              + e.getMessage(),
          e);
    }
  }

  private void releaseQuietly() {
    try {
      release();
    } catch (LockException | IllegalStateException e) {
      log.warn("ShedLock lock '{}' could not be released after its lockAtLeastFor", storeName(), e);
    }
  }

  private void cancelTimer() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
      timer = null;
    }
  }

  @Override
  public String toString() {
    return "Hold{" + storeName() + ", " + state + "}";
  }
}
