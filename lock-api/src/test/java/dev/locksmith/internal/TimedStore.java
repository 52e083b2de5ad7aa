package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreTiming;
import dev.locksmith.spi.WaitQueue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A mem: store that declares the timing a test gives it (a coarse granularity, a long minimum
 * lease), records the leases it was asked to extend to, can fail its extends, and tells whether it
 * was closed: the engine's arithmetic and clean-up seen from the store's side.
 */
class TimedStore implements LockStore {

  private final MemLockStore mem;
  private final StoreTiming timing;
  // What the store promises and whether it is session bound; a test may change them before it
  // opens a client.
  volatile Set<Capability> promises;
  volatile Optional<SessionEvents> sessionEvents = Optional.empty();
  final List<Duration> extendedTo = new CopyOnWriteArrayList<>();
  final AtomicInteger enqueued = new AtomicInteger();
  // The names of the threads that called release, in order.
  final List<String> releasedOn = new CopyOnWriteArrayList<>();
  volatile @Nullable Supplier<RuntimeException> enqueueFailure;
  volatile @Nullable Supplier<RuntimeException> leaveQueueFailure;
  final AtomicBoolean closed = new AtomicBoolean();
  volatile @Nullable Supplier<? extends Exception> extendFailure;
  volatile @Nullable Supplier<? extends Exception> readFailure;
  final List<Duration> acquiredWith = new CopyOnWriteArrayList<>();
  final AtomicInteger acquireCalls = new AtomicInteger();
  // How many of the next releases fail before reaching the mem: store, as over a broken connection.
  final AtomicInteger failingReleases = new AtomicInteger();
  // Run inside tryAcquire and extend, after the store did the work and before it answers.
  volatile Runnable duringAcquire = () -> {};
  volatile Runnable duringExtend = () -> {};

  /** A mem: store that declares {@code timing}; waiters poll. */
  TimedStore(StoreTiming timing) {
    this(timing, MemLockStore.Waiters.POLL);
  }

  /** A mem: store that declares {@code timing} and keeps waiters as {@code waiters} says. */
  TimedStore(StoreTiming timing, MemLockStore.Waiters waiters) {
    this.mem = new MemLockStore(MemLockSpace.named("timed-" + UUID.randomUUID()), "", waiters);
    this.timing = timing;
    this.promises = mem.promises();
  }

  /**
   * Whether the exclusive lock {@code name} is held in the space, asked past every failure hook.
   */
  boolean locked(String name) {
    return new MemLockStore(mem.space(), "").read(LockKey.exclusive(name)).locked();
  }

  /** The space behind the store, for tests that change holds from outside. */
  MemLockSpace space() {
    return mem.space();
  }

  @Override
  public String describe() {
    return mem.describe();
  }

  @Override
  public String keyPrefix() {
    return mem.keyPrefix();
  }

  @Override
  public Set<Capability> promises() {
    return promises;
  }

  @Override
  public Optional<SessionEvents> sessionEvents() {
    return sessionEvents;
  }

  @Override
  public StoreTiming timing() {
    return timing;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    acquiredWith.add(leaseTime);
    acquireCalls.incrementAndGet();
    Acquisition a = mem.tryAcquire(key, owner, leaseTime);
    duringAcquire.run();
    return a;
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    extendedTo.add(leaseTime);
    Supplier<? extends Exception> failure = extendFailure;
    if (failure != null) {
      throw failure.get();
    }
    boolean held = mem.extend(key, owner, leaseTime);
    duringExtend.run();
    return held;
  }

  @Override
  public Optional<WaitQueue> waitQueue() {
    return mem.waitQueue()
        .map(queue -> (key, owner, leaseTime) -> enqueue(queue, key, owner, leaseTime));
  }

  private QueuedAttempt enqueue(WaitQueue queue, LockKey key, String owner, Duration leaseTime)
      throws Exception {
    enqueued.incrementAndGet();
    Supplier<RuntimeException> failure = enqueueFailure;
    if (failure != null) {
      throw failure.get();
    }
    QueuedAttempt queued = queue.enqueue(key, owner, leaseTime);
    return new QueuedAttempt() {
      @Override
      public Acquisition poll() throws Exception {
        return queued.poll();
      }

      @Override
      public void awaitChange(Runnable signal) throws Exception {
        queued.awaitChange(signal);
      }

      @Override
      public void close() throws Exception {
        queued.close();
        Supplier<RuntimeException> leaving = leaveQueueFailure;
        if (leaving != null) {
          throw leaving.get();
        }
      }
    };
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return mem.releasePush();
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return mem.readWrite();
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    releasedOn.add(Thread.currentThread().getName());
    if (failingReleases.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new java.net.SocketException("Connection reset (the release never reached the store)");
    }
    return mem.release(key, owner);
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    Supplier<? extends Exception> failure = readFailure;
    if (failure != null) {
      throw failure.get();
    }
    return mem.read(key);
  }

  @Override
  public void close() {
    closed.set(true);
    mem.close();
  }
}
