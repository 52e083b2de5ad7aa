package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A mem: store that declares the timing a test gives it (a coarse granularity, a long minimum
 * lease), records the leases it was asked to extend to, can fail its extends, and tells whether it
 * was closed: the engine's arithmetic and clean-up seen from the store's side.
 */
class TimedStore implements LockStore {

  private final MemLockStore mem =
      new MemLockStore(MemLockSpace.named("timed-" + UUID.randomUUID()));
  private final StoreTiming timing;
  final List<Duration> extendedTo = new CopyOnWriteArrayList<>();
  final AtomicBoolean closed = new AtomicBoolean();
  volatile @Nullable Supplier<RuntimeException> extendFailure;

  TimedStore(StoreTiming timing) {
    this.timing = timing;
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
    return mem.capabilities();
  }

  @Override
  public StoreTiming timing() {
    return timing;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    return mem.tryAcquire(key, owner, leaseTime);
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    extendedTo.add(leaseTime);
    Supplier<RuntimeException> failure = extendFailure;
    if (failure != null) {
      throw failure.get();
    }
    return mem.extend(key, owner, leaseTime);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
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
