package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.EnumSet;
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
  // What the store declares; a test may change it before it opens a client.
  volatile Set<Capability> capabilities;
  final List<Duration> extendedTo = new CopyOnWriteArrayList<>();
  final AtomicInteger enqueued = new AtomicInteger();
  // The names of the threads that called release, in order.
  final List<String> releasedOn = new CopyOnWriteArrayList<>();
  volatile @Nullable Supplier<RuntimeException> enqueueFailure;
  volatile @Nullable Supplier<RuntimeException> leaveQueueFailure;
  final AtomicBoolean closed = new AtomicBoolean();
  volatile @Nullable Supplier<RuntimeException> extendFailure;
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
    this.capabilities = mem.capabilities();
  }

  /** The mem: store's capabilities but {@code without}, plus {@code with}. */
  Set<Capability> capabilitiesWith(Set<Capability> with, Set<Capability> without) {
    Set<Capability> caps = EnumSet.copyOf(mem.capabilities());
    caps.removeAll(without);
    caps.addAll(with);
    return Set.copyOf(caps);
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
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public StoreTiming timing() {
    return timing;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    Acquisition a = mem.tryAcquire(key, owner, leaseTime);
    duringAcquire.run();
    return a;
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    extendedTo.add(leaseTime);
    Supplier<RuntimeException> failure = extendFailure;
    if (failure != null) {
      throw failure.get();
    }
    boolean held = mem.extend(key, owner, leaseTime);
    duringExtend.run();
    return held;
  }

  @Override
  public Optional<QueuedAttempt> enqueue(LockKey key, String owner, Duration leaseTime) {
    enqueued.incrementAndGet();
    Supplier<RuntimeException> failure = enqueueFailure;
    if (failure != null) {
      throw failure.get();
    }
    return mem.enqueue(key, owner, leaseTime)
        .map(
            queued ->
                new QueuedAttempt() {
                  @Override
                  public Acquisition poll() {
                    return queued.poll();
                  }

                  @Override
                  public void awaitChange(Runnable signal) {
                    queued.awaitChange(signal);
                  }

                  @Override
                  public void close() {
                    queued.close();
                    Supplier<RuntimeException> leaving = leaveQueueFailure;
                    if (leaving != null) {
                      throw leaving.get();
                    }
                  }
                });
  }

  @Override
  public Optional<AutoCloseable> onRelease(LockKey key, Runnable onRelease) {
    return mem.onRelease(key, onRelease);
  }

  @Override
  public void withdraw(LockKey key, String owner) {
    mem.withdraw(key, owner);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    releasedOn.add(Thread.currentThread().getName());
    return mem.release(key, owner);
  }

  @Override
  public LockState read(LockKey key) {
    return mem.read(key);
  }

  @Override
  public void close() {
    closed.set(true);
    mem.close();
  }
}
