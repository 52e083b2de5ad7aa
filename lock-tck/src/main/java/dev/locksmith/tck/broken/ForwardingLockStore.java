package dev.locksmith.tck.broken;

import dev.locksmith.Capability;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
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
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the broken "driver" stores share: a connection that passes every call to a correct store
 * (the reference {@code mem:} store), so that a subclass can be wrong in exactly one place, the way
 * a client library in front of a correct server is.
 *
 * <p>On its own it keeps every promise of the store it wraps; each subclass overrides one method
 * with a realistic defect. Names and owners reach the store through {@link #storedKey} and {@link
 * #storedOwner}, the driver's encodings, which are faithful unless a subclass breaks them. Do not
 * copy the subclasses.
 */
public abstract class ForwardingLockStore implements LockStore {

  /** The correct store every call goes to unless a subclass says otherwise. */
  protected final LockStore delegate;

  private final String description;

  /** Forwards to {@code delegate}, described as {@code description} in messages. */
  protected ForwardingLockStore(LockStore delegate, String description) {
    this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
    this.description = Objects.requireNonNull(description, "description must not be null");
  }

  /** Forwards to a new connection to {@code space}, with no key prefix. */
  protected ForwardingLockStore(MemLockSpace space, String description) {
    this(new MemLockStore(space), description);
  }

  @Override
  public String describe() {
    return description + " over " + delegate.describe();
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
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.tryAcquire(storedKey(key), storedOwner(owner), leaseTime);
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.extend(storedKey(key), storedOwner(owner), leaseTime);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    return delegate.release(storedKey(key), storedOwner(owner));
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    return delegate.read(storedKey(key));
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return delegate.readWrite().map(rw -> (key, owner) -> withdraw(rw, key, owner));
  }

  /** Removes a waiting writer's mark through {@code holds}, the delegate's read-write part. */
  protected void withdraw(ReadWriteHolds holds, LockKey key, String owner) throws Exception {
    holds.withdraw(storedKey(key), storedOwner(owner));
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return delegate.releasePush().map(push -> (key, run) -> push.onRelease(storedKey(key), run));
  }

  @Override
  public Optional<WaitQueue> waitQueue() {
    return delegate
        .waitQueue()
        .map(queue -> (key, owner, leaseTime) -> enqueue(queue, key, owner, leaseTime));
  }

  /** Joins the queue of {@code key} through {@code queue}, the delegate's queue part. */
  protected QueuedAttempt enqueue(WaitQueue queue, LockKey key, String owner, Duration leaseTime)
      throws Exception {
    return queue.enqueue(storedKey(key), storedOwner(owner), leaseTime);
  }

  @Override
  public Optional<SessionEvents> sessionEvents() {
    return delegate.sessionEvents();
  }

  @Override
  public void close() {
    delegate.close();
  }

  /**
   * Loses this store's connection to the space, as a cut network path would ({@link
   * MemLockStore#disconnect()}), for the kit's client links.
   *
   * @throws IllegalStateException if the store does not forward to a mem: connection
   */
  public void disconnect() {
    if (delegate instanceof MemLockStore) {
      ((MemLockStore) delegate).disconnect();
    } else if (delegate instanceof ForwardingLockStore) {
      ((ForwardingLockStore) delegate).disconnect();
    } else {
      throw new IllegalStateException("cannot disconnect " + delegate.describe());
    }
  }

  /**
   * The name under which this store keeps the lock called {@code name}, for an outside actor that
   * deletes holds in the store directly and so must use the store's encoding.
   */
  public final String nameInStore(String name, LockMode mode) {
    return storedKey(new LockKey(name, mode)).name();
  }

  /** The key under which the store keeps {@code key}: the key itself, unless a defect says not. */
  protected LockKey storedKey(LockKey key) {
    return key;
  }

  /** The owner id the store records for {@code owner}: the id itself, unless a defect says not. */
  protected String storedOwner(String owner) {
    return owner;
  }
}
