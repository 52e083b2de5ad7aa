package dev.locksmith.mem;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.WaitQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

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
  private volatile boolean disconnected;
  // What waiters registered through this connection (release listeners, queue places' signals):
  // a lost connection runs them, as a driver that notices its dead connection wakes its waiters.
  private final Set<Runnable> waiting = java.util.concurrent.ConcurrentHashMap.newKeySet();

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
    return keyPrefix.isEmpty() ? key : new LockKey(key.nameUnder(keyPrefix), key.mode());
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
          AutoCloseable subscription = space.onRelease(inSpace(key), onRelease);
          waiting.add(onRelease);
          return () -> {
            waiting.remove(onRelease);
            subscription.close();
          };
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
          return new ConnectedPlace(space.enqueue(inSpace(key), owner, leaseTime.toNanos()));
        });
  }

  /**
   * Loses this connection, for tests of what a client does when its own connection to the store
   * dies while the store stays up: from now on every call fails with {@link LockStoreException},
   * and every waiter registered through the connection is woken (so that it asks again and is
   * told). Holds stay in the space until their leases end, as in a networked store.
   */
  public void disconnect() {
    disconnected = true;
    List<Runnable> wake = new ArrayList<>(waiting);
    waiting.clear();
    wake.forEach(Runnable::run);
  }

  private void checkOpen() {
    if (closed) {
      throw new LockStoreException("this mem: store connection is closed");
    }
    if (disconnected) {
      throw new LockStoreException("this mem: store connection was lost");
    }
  }

  /** A place in the space's queue, reached through this connection. */
  private final class ConnectedPlace implements QueuedAttempt {
    private final QueuedAttempt place;
    private volatile @Nullable Runnable signal;

    ConnectedPlace(QueuedAttempt place) {
      this.place = place;
    }

    @Override
    public Acquisition poll() throws Exception {
      checkOpen();
      Acquisition a = place.poll();
      if (a.isAcquired()) {
        forgetSignal();
      }
      return a;
    }

    @Override
    public void awaitChange(Runnable signal) throws Exception {
      checkOpen();
      forgetSignal();
      this.signal = signal;
      waiting.add(signal);
      place.awaitChange(signal);
    }

    @Override
    public void close() throws Exception {
      forgetSignal();
      place.close(); // Leaving the queue is the space's bookkeeping: it works without the link.
    }

    private void forgetSignal() {
      Runnable s = signal;
      if (s != null) {
        waiting.remove(s);
        signal = null;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
