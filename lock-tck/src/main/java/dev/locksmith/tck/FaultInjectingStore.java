package dev.locksmith.tck;

import dev.locksmith.Capability;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.spi.StoreTiming;
import dev.locksmith.spi.WaitQueue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockStore} around a real one that fails on command, for the rules about what the engine
 * promises when its store misbehaves: a reply lost after the store acted, a call that fails or
 * hangs, a renewal told the hold is gone, a retry hint on busy answers, no release push.
 *
 * <p>It counts the calls of each operation. Injected failures are thrown as {@link
 * UncheckedIOException}, as a driver's broken connection would be. Thread-safe.
 */
public final class FaultInjectingStore implements LockStore {

  /** The store operations a fault can be injected into. */
  public enum Operation {
    /** {@link LockStore#tryAcquire}. */
    TRY_ACQUIRE,
    /** {@link LockStore#extend}. */
    EXTEND,
    /** {@link LockStore#release}. */
    RELEASE,
    /** {@link LockStore#read}. */
    READ
  }

  /** What an operation does instead of simply passing through. */
  public enum Fault {
    /** Passes the call to the real store. */
    NONE,
    /** Lets the real store act, then throws: the reply was lost on its way back. */
    LOSE_REPLY,
    /** Throws without calling the real store. */
    FAIL,
    /** Blocks until {@link #heal()} (or the calling thread is interrupted), then passes. */
    HANG,
    /** Answers that the owner holds nothing ({@code false}, {@code NOT_HELD}) without acting. */
    ANSWER_NOT_HELD,
    /**
     * Passes the call to the real store after the delay {@link #delay} set, as a slow network path
     * would: the request reaches the store that much later.
     */
    DELAY,
    /**
     * Lets the real store act at once and answers after the delay {@link #delayReply} set, as a
     * slow network path back would: the store has done the work long before the caller hears.
     */
    DELAY_REPLY
  }

  private final LockStore delegate;
  private final Map<Operation, Fault> faults = new EnumMap<>(Operation.class);
  private final Map<Operation, AtomicInteger> calls = new EnumMap<>(Operation.class);
  private final Map<Operation, AtomicInteger> completed = new EnumMap<>(Operation.class);
  private volatile Duration delay = Duration.ZERO;
  private final Object healed = new Object();
  private volatile @Nullable Duration retryHint;
  private volatile boolean pushAndQueue = true;
  private final AtomicInteger places = new AtomicInteger();

  /** Wraps {@code delegate}; every operation passes through until a fault is injected. */
  public FaultInjectingStore(LockStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
    for (Operation op : Operation.values()) {
      faults.put(op, Fault.NONE);
      calls.put(op, new AtomicInteger());
      completed.put(op, new AtomicInteger());
    }
  }

  /** Makes {@code operation} behave as {@code fault} from now on. */
  public void inject(Operation operation, Fault fault) {
    Objects.requireNonNull(operation, "operation must not be null");
    Objects.requireNonNull(fault, "fault must not be null");
    synchronized (faults) {
      faults.put(operation, fault);
    }
  }

  /** Removes every fault and lets hanging calls go on. */
  public void heal() {
    synchronized (faults) {
      faults.replaceAll((op, f) -> Fault.NONE);
    }
    synchronized (healed) {
      healed.notifyAll();
    }
  }

  /**
   * Makes {@code operation} reach the real store {@code delay} after it is called, from now on
   * ({@link Fault#DELAY}).
   */
  public void delay(Operation operation, Duration delay) {
    Objects.requireNonNull(delay, "delay must not be null");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    this.delay = delay;
    inject(operation, Fault.DELAY);
  }

  /**
   * Makes {@code operation} act in the real store at once and answer {@code delay} later, from now
   * on ({@link Fault#DELAY_REPLY}).
   */
  public void delayReply(Operation operation, Duration delay) {
    Objects.requireNonNull(delay, "delay must not be null");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    this.delay = delay;
    inject(operation, Fault.DELAY_REPLY);
  }

  private void sleepDelay(Operation op) {
    try {
      Thread.sleep(delay.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted while delaying " + op, e));
    }
  }

  /** How many calls of {@code operation} have returned or thrown so far. */
  public int completed(Operation operation) {
    return completed.get(operation).get();
  }

  /** How often {@code operation} was called so far. */
  public int calls(Operation operation) {
    return calls.get(operation).get();
  }

  /** How many places in the store's waiters' queue this store handed out so far. */
  public int queued() {
    return places.get();
  }

  /** Makes every busy answer carry {@code hint} as its retry hint (null: the real store's). */
  public void retryHint(@Nullable Duration hint) {
    this.retryHint = hint;
  }

  /**
   * Hides the real store's release push and waiters' queue, so waiters poll: the capabilities then
   * lack WAKE_ON_RELEASE and FAIR_QUEUE. Call it before making a client on this store.
   */
  public void withoutPushOrQueue() {
    this.pushAndQueue = false;
  }

  private Fault fault(Operation op) {
    calls.get(op).incrementAndGet();
    Fault f;
    synchronized (faults) {
      f = faults.get(op);
    }
    if (f == Fault.FAIL) {
      throw injected(op);
    }
    if (f == Fault.HANG) {
      hang(op);
    }
    if (f == Fault.DELAY) {
      sleepDelay(op);
    }
    return f;
  }

  private void hang(Operation op) {
    synchronized (healed) {
      while (true) {
        synchronized (faults) {
          if (faults.get(op) != Fault.HANG) {
            return;
          }
        }
        try {
          healed.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new UncheckedIOException(new IOException("interrupted while hanging " + op, e));
        }
      }
    }
  }

  private static UncheckedIOException injected(Operation op) {
    return new UncheckedIOException(new IOException("injected fault: " + op + " failed"));
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    try {
      Fault f = fault(Operation.TRY_ACQUIRE);
      Acquisition a = delegate.tryAcquire(key, owner, leaseTime);
      if (f == Fault.LOSE_REPLY) {
        throw injected(Operation.TRY_ACQUIRE);
      }
      if (f == Fault.DELAY_REPLY) {
        sleepDelay(Operation.TRY_ACQUIRE);
      }
      Duration hint = retryHint;
      return !a.isAcquired() && hint != null ? Acquisition.busy(hint) : a;
    } finally {
      completed.get(Operation.TRY_ACQUIRE).incrementAndGet();
    }
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    try {
      Fault f = fault(Operation.EXTEND);
      if (f == Fault.ANSWER_NOT_HELD) {
        return false;
      }
      boolean held = delegate.extend(key, owner, leaseTime);
      if (f == Fault.LOSE_REPLY) {
        throw injected(Operation.EXTEND);
      }
      if (f == Fault.DELAY_REPLY) {
        sleepDelay(Operation.EXTEND);
      }
      return held;
    } finally {
      completed.get(Operation.EXTEND).incrementAndGet();
    }
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    try {
      Fault f = fault(Operation.RELEASE);
      if (f == Fault.ANSWER_NOT_HELD) {
        return ReleaseOutcome.NOT_HELD;
      }
      ReleaseOutcome outcome = delegate.release(key, owner);
      if (f == Fault.LOSE_REPLY) {
        throw injected(Operation.RELEASE);
      }
      if (f == Fault.DELAY_REPLY) {
        sleepDelay(Operation.RELEASE);
      }
      return outcome;
    } finally {
      completed.get(Operation.RELEASE).incrementAndGet();
    }
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    try {
      Fault f = fault(Operation.READ);
      LockState state = delegate.read(key);
      if (f == Fault.DELAY_REPLY) {
        sleepDelay(Operation.READ);
      }
      if (f == Fault.LOSE_REPLY) {
        throw injected(Operation.READ);
      }
      return state;
    } finally {
      completed.get(Operation.READ).incrementAndGet();
    }
  }

  @Override
  public String describe() {
    return delegate.describe() + " (faults injected)";
  }

  @Override
  public String keyPrefix() {
    return delegate.keyPrefix();
  }

  @Override
  public Set<Capability> promises() {
    return delegate.promises();
  }

  @Override
  public StoreTiming timing() {
    return delegate.timing();
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return delegate.readWrite();
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return pushAndQueue ? delegate.releasePush() : Optional.empty();
  }

  @Override
  public Optional<WaitQueue> waitQueue() {
    if (!pushAndQueue) {
      return Optional.empty();
    }
    return delegate
        .waitQueue()
        .map(
            queue ->
                (key, owner, leaseTime) -> {
                  QueuedAttempt place = queue.enqueue(key, owner, leaseTime);
                  places.incrementAndGet();
                  return place;
                });
  }

  @Override
  public Optional<SessionEvents> sessionEvents() {
    return delegate.sessionEvents();
  }

  @Override
  public StoreFailure classify(Exception failure) {
    return delegate.classify(failure);
  }

  @Override
  public void close() {
    heal();
    delegate.close();
  }
}
