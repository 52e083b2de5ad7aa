package dev.locksmith.mem;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.WaitQueue;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * One connection to a {@link MemLockSpace}: the reference implementation of {@link LockStore}.
 *
 * <p>It keeps every promise of the kit: owner-checked release and extend, expiry on the space's
 * clock, fencing tokens that never go back (also across {@link MemLockSpace#restart()}), reentrant
 * holds, read-write locks with writer preference, and release notifications. Closing the connection
 * does not release anything, as with a networked store.
 */
public final class MemLockStore implements LockStore {

  /** How a connection's waiters wait for a held lock. */
  public enum Waiters {
    /** They poll, woken early by release notifications (the default). */
    POLL,
    /**
     * They join the space's queue of the lock and take it in the order they joined ({@link
     * Capability#FAIR_QUEUE}); {@code mem:NAME?waiters=queue}.
     */
    QUEUE
  }

  private static final Set<Capability> PROMISES =
      Set.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);

  private final MemLockSpace space;
  private final String keyPrefix;
  private final Waiters waiters;
  private volatile boolean closed;

  /** A connection to {@code space}, with no key prefix. */
  public MemLockStore(MemLockSpace space) {
    this(space, "");
  }

  /**
   * A connection to {@code space} that puts {@code keyPrefix} before every lock name, so clients
   * with different prefixes never share a lock.
   *
   * @throws IllegalArgumentException if the prefix is over 64 UTF-8 bytes or has control characters
   */
  public MemLockStore(MemLockSpace space, String keyPrefix) {
    this(space, keyPrefix, Waiters.POLL);
  }

  /**
   * A connection to {@code space} with {@code keyPrefix} whose waiters wait as {@code waiters}
   * says.
   *
   * @throws IllegalArgumentException if the prefix is over 64 UTF-8 bytes or has control characters
   */
  public MemLockStore(MemLockSpace space, String keyPrefix, Waiters waiters) {
    this.space = java.util.Objects.requireNonNull(space, "space must not be null");
    this.keyPrefix = dev.locksmith.internal.InputRules.keyPrefix(keyPrefix);
    this.waiters = java.util.Objects.requireNonNull(waiters, "waiters must not be null");
  }

  /** The space this connection works on (for fault injection in tests). */
  public MemLockSpace space() {
    return space;
  }

  @Override
  public String describe() {
    return "mem:" + space.name();
  }

  @Override
  public String keyPrefix() {
    return keyPrefix;
  }

  private LockKey inSpace(LockKey key) {
    return keyPrefix.isEmpty() ? key : new LockKey(keyPrefix + key.name(), key.mode());
  }

  @Override
  public Set<Capability> promises() {
    return PROMISES;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    checkOpen();
    return space.tryAcquire(inSpace(key), owner, leaseTime.toNanos());
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    checkOpen();
    return space.extend(inSpace(key), owner, leaseTime.toNanos());
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    checkOpen();
    return space.release(inSpace(key), owner);
  }

  @Override
  public LockState read(LockKey key) {
    checkOpen();
    return space.read(inSpace(key));
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return Optional.of(
        (key, owner) -> {
          checkOpen();
          space.withdraw(inSpace(key), owner);
        });
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return Optional.of(
        (key, onRelease) -> {
          checkOpen();
          return space.onRelease(inSpace(key), onRelease);
        });
  }

  @Override
  public Optional<WaitQueue> waitQueue() {
    if (waiters != Waiters.QUEUE) {
      return Optional.empty();
    }
    return Optional.of(
        (key, owner, leaseTime) -> {
          checkOpen();
          return space.enqueue(inSpace(key), owner, leaseTime.toNanos());
        });
  }

  private void checkOpen() {
    if (closed) {
      throw new LockStoreException("this mem: store connection is closed");
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
