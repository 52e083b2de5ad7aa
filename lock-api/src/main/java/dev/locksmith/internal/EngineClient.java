package dev.locksmith.internal;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LeaseLostException.Kind;
import dev.locksmith.LockClient;
import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import dev.locksmith.MultiLock;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreListener;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link LockClient}: one store connection, its leases, its renewal scheduler and its
 * thread-owned views.
 *
 * <p>Besides the API it offers {@link #crash()}, for test kits: it makes the client behave like a
 * process that died while holding locks.
 */
public final class EngineClient implements LockClient {

  private static final Logger log = LoggerFactory.getLogger(EngineClient.class);

  private final LockStore store;
  private final StoreGateway gateway;
  private final LockOptions options;
  private final String storeName;
  private final Set<Capability> capabilities;
  private final StoreTiming timing;
  private final LeaseWatchdog watchdog;
  private final Set<EngineLease> leases = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<LockKey, ThreadHolds> threadHolds = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final String ownerPrefix;
  private final AtomicLong ownerSequence = new AtomicLong();
  private final LockObserver observer;
  private final boolean observed;
  private final @Nullable SessionEvents sessionEvents;
  // Acquire calls into the store in flight, which close() lets finish (see startAcquireCall).
  private final AtomicInteger acquireCalls = new AtomicInteger();
  // The wake-ups of the attempts waiting between two store calls, signalled by close and by a
  // lost session so that those attempts find out at once instead of at their next turn.
  private final Set<WakeSignal> waiting = ConcurrentHashMap.newKeySet();
  // Releases that failed and are being asked again in the background (releaseUntilAnswered).
  private final Set<PendingRelease> pendingReleases = ConcurrentHashMap.newKeySet();

  /**
   * How long close() waits for acquire calls in flight: a store call ends by the store's own
   * command timeout, which is seconds; an acquire that answers later frees at its lease's end.
   */
  static final Duration CLOSE_DRAIN = Duration.ofSeconds(5);

  /** The first pause before a failed release is asked again; it doubles up to the cap below. */
  private static final long RELEASE_RETRY_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final long RELEASE_RETRY_CAP_NANOS = TimeUnit.SECONDS.toNanos(5);

  /**
   * Wraps {@code store}; the client owns it from now on.
   *
   * @throws IllegalArgumentException if the options' lease time is below the store's minimum, or
   *     they set a key prefix other than the one the store was built with
   */
  public EngineClient(LockStore store, LockOptions options) {
    this.store = Objects.requireNonNull(store, "store must not be null");
    Objects.requireNonNull(options, "options must not be null");
    this.gateway = new StoreGateway(store);
    this.watchdog = new LeaseWatchdog(gateway);
    this.storeName = gateway.storeName();
    this.capabilities = LockStore.capabilitiesOf(store);
    this.timing = store.timing();
    InputRules.leaseTime("leaseTime", options.leaseTime(), timing.minimumLease(), storeName);
    String storePrefix = store.keyPrefix();
    if (options.keyPrefix().isPresent() && !options.keyPrefix().get().equals(storePrefix)) {
      // A store built by hand took its prefix in its constructor: an option it never saw must not
      // look as if it applied.
      throw new IllegalArgumentException(
          "keyPrefix '"
              + options.keyPrefix().get()
              + "' cannot apply to "
              + storeName
              + ", which was built with key prefix '"
              + storePrefix
              + "'; give the prefix to the store itself");
    }
    String owner = options.owner().orElse("pid" + ProcessHandle.current().pid());
    // The options in force, as the README documents them: what the client and its store use.
    this.options = options.toBuilder().owner(owner).keyPrefix(storePrefix).build();
    String clientId = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    this.ownerPrefix = owner + "/" + clientId + "/";
    this.observer = new GuardedObserver(options.observer());
    this.observed = options.observer() != LockObserver.NONE;
    this.sessionEvents = store.sessionEvents().orElse(null);
    if (sessionEvents != null) {
      sessionEvents.listen(new Events());
    }
  }

  /**
   * Whether holds bound to the store's session may still be trusted now (see {@link
   * SessionEvents#trustedAt}); true for a store without sessions.
   */
  boolean sessionTrusted() {
    return sessionEvents == null || sessionEvents.trustedAt(System.nanoTime());
  }

  @Override
  public DistributedLock lock(String name) {
    ensureOpen();
    return new EngineLock(this, new LockKey(InputRules.name(name), LockMode.EXCLUSIVE));
  }

  @Override
  public DistributedReadWriteLock readWriteLock(String name) {
    ensureOpen();
    String checked = InputRules.name(name);
    require(Capability.READ_WRITE, "it has no shared (read) holds");
    return new EngineReadWriteLock(this, checked);
  }

  @Override
  public MultiLock lockAll(Collection<String> names) {
    ensureOpen();
    Objects.requireNonNull(names, "names must not be null");
    return new EngineMultiLock(this, names);
  }

  @Override
  public MultiLock lockAll(String... names) {
    Objects.requireNonNull(names, "names must not be null");
    return lockAll(Arrays.asList(names));
  }

  @Override
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public Duration minimumLease() {
    return timing.minimumLease();
  }

  @Override
  public LockOptions options() {
    return options;
  }

  /**
   * Releases every lease this client holds, ends its waits, and closes the store. An acquire whose
   * store call is in flight is let finish (for up to {@link #CLOSE_DRAIN}) and what it got is
   * released before the store closes: a lock granted while the client closes is never left held
   * until its lease ends.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    waiting.forEach(WakeSignal::signal);
    awaitAcquireCalls();
    List<EngineLease> held = new ArrayList<>(leases);
    for (EngineLease lease : held) {
      try {
        lease.release();
      } catch (LeaseLostException e) {
        log.debug("Lease {} was already lost when its client closed", lease, e);
      } catch (RuntimeException e) {
        log.warn("Could not release {} while closing the client; it frees at expiry", lease, e);
      }
    }
    for (PendingRelease pending : new ArrayList<>(pendingReleases)) {
      pending.askOnce(); // A last try while the store is still open; it frees the lock sooner.
    }
    watchdog.shutdown();
    store.close();
  }

  private void awaitAcquireCalls() {
    long deadline = System.nanoTime() + CLOSE_DRAIN.toNanos();
    synchronized (acquireCalls) {
      long left;
      while (acquireCalls.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(acquireCalls, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return; // The caller wants out: what is still in flight frees at its lease's end.
        }
      }
    }
  }

  /**
   * Marks an acquire call into the store as in flight, until {@link #endAcquireCall()}; the call
   * and the registration of what it got happen in between.
   *
   * @throws IllegalStateException if the client is closed (the call must not be made)
   */
  void startAcquireCall() {
    // Counted before the check, close() sets the flag before it waits for the count: either the
    // call sees the flag or close() sees the call.
    acquireCalls.incrementAndGet();
    if (closed.get()) {
      endAcquireCall();
      throw new IllegalStateException("this lock client is closed");
    }
  }

  void endAcquireCall() {
    if (acquireCalls.decrementAndGet() == 0 && closed.get()) {
      synchronized (acquireCalls) {
        acquireCalls.notifyAll();
      }
    }
  }

  /** Registers the wake-up of an attempt that waits between store calls, until it stops. */
  void waiting(WakeSignal signal) {
    waiting.add(signal);
    if (closed.get()) {
      signal.signal();
    }
  }

  void doneWaiting(WakeSignal signal) {
    waiting.remove(signal);
  }

  /**
   * Asks the store again and again, in the background, to release {@code owner}'s hold on {@code
   * key}, whose release failed: until it answers, until {@code deadline} (when the hold has expired
   * anyway; {@link LeaseWatchdog#NONE} for a hold that lives as long as the session), or until the
   * client closes. The pauses double from 100 ms up to 5 s.
   */
  void releaseUntilAnswered(LockKey key, String owner, long deadline) {
    PendingRelease pending = new PendingRelease(key, owner, deadline);
    pendingReleases.add(pending);
    pending.scheduleNext();
  }

  /** A failed release that is being asked again. */
  private final class PendingRelease {
    private final LockKey key;
    private final String owner;
    private final long deadline;
    private long pauseNanos = RELEASE_RETRY_FIRST_NANOS;

    PendingRelease(LockKey key, String owner, long deadline) {
      this.key = key;
      this.owner = owner;
      this.deadline = deadline;
    }

    void scheduleNext() {
      if (deadline != LeaseWatchdog.NONE && deadline - System.nanoTime() - pauseNanos <= 0) {
        pendingReleases.remove(this);
        return; // The hold expires before the next try would run.
      }
      try {
        watchdog.executeAfter(this::askAgain, pauseNanos);
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        pendingReleases.remove(this);
        return;
      }
      pauseNanos = Math.min(pauseNanos * 2, RELEASE_RETRY_CAP_NANOS);
    }

    private void askAgain() {
      if (!pendingReleases.contains(this)) {
        return;
      }
      if (askOnce()) {
        log.debug("Released lock '{}' for owner {} after its release had failed", key, owner);
      } else {
        scheduleNext();
      }
    }

    /** One release; true once the store answered (whatever it answered). */
    boolean askOnce() {
      try {
        gateway.release(key, owner);
        pendingReleases.remove(this);
        return true;
      } catch (RuntimeException e) {
        log.debug("Release of lock '{}' for owner {} failed again", key, owner, e);
        return false;
      }
    }
  }

  /**
   * Makes this client behave like a process that died: renewal stops, the store connection is
   * closed, and nothing is released, so held locks free only when their lease or session ends. For
   * test kits; the client is unusable afterwards.
   */
  public void crash() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    watchdog.shutdown(); // Stops every lease's renewal and expiry timers; tells the store nothing.
    store.close();
  }

  /**
   * Hands the store to the caller and shuts this client down without closing the store or releasing
   * anything, for test kits that wrap the store of a client they were given. The client is unusable
   * afterwards.
   *
   * @throws IllegalStateException if the client is closed or holds leases
   */
  public LockStore detachStore() {
    if (!leases.isEmpty()) {
      throw new IllegalStateException("cannot detach the store of a client that holds leases");
    }
    if (!closed.compareAndSet(false, true)) {
      throw new IllegalStateException("this lock client is closed");
    }
    watchdog.shutdown();
    return store;
  }

  /**
   * How many leases the watchdog still watches plus renewals queued (for test kits): zero once
   * every lease was released, lost or abandoned.
   */
  public int scheduledTimers() {
    return watchdog.pending();
  }

  /** How many leases this client holds and tracks (for test kits). */
  public int activeLeases() {
    return leases.size();
  }

  // For the rest of the engine.

  void require(Capability capability, String why) {
    if (!capabilities.contains(capability)) {
      throw new UnsupportedCapabilityException(capability, storeName, why);
    }
  }

  boolean isClosed() {
    return closed.get();
  }

  void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("this lock client is closed");
    }
  }

  /** The store behind this client (for test kits, which call the SPI directly). */
  public LockStore store() {
    return store;
  }

  StoreGateway gateway() {
    return gateway;
  }

  String storeName() {
    return storeName;
  }

  /** The store's shortest lease and clock granularity. */
  public StoreTiming timing() {
    return timing;
  }

  LeaseWatchdog watchdog() {
    return watchdog;
  }

  /** A new owner id, unique across clients and processes. */
  String newOwner(String tag) {
    return ownerPrefix + tag + ownerSequence.incrementAndGet();
  }

  ThreadHolds threadHolds(LockKey key) {
    return threadHolds.computeIfAbsent(key, k -> new ThreadHolds());
  }

  void register(EngineLease lease) {
    leases.add(lease);
    if (closed.get()) {
      // The client closed while this acquire was in flight: give the lock back at once.
      leases.remove(lease);
      try {
        lease.release();
      } catch (RuntimeException e) {
        log.debug("Could not release {} acquired while the client closed", lease, e);
      }
      ensureOpen();
    }
    lease.start();
  }

  void forget(EngineLease lease) {
    if (leases.remove(lease)) {
      observer.leaseEnded(storeName, lease);
    }
  }

  /** The options' observer, guarded so that it cannot throw. */
  LockObserver observer() {
    return observer;
  }

  /** Whether the options set an observer: without one, nothing is timed for it. */
  boolean observed() {
    return observed;
  }

  /**
   * Best-effort owner-checked release of a hold nobody has a lease for, on the watchdog's renewal
   * thread; inline if the client is closing.
   */
  void releaseInBackground(LockKey key, String owner) {
    try {
      watchdog.execute(() -> releaseQuietly(key, owner));
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      releaseQuietly(key, owner);
    }
  }

  /** Best-effort owner-checked release for cleanup paths; never throws, never interrupted. */
  void releaseQuietly(LockKey key, String owner) {
    try {
      gateway.release(key, owner);
    } catch (RuntimeException e) {
      log.debug("Cleanup release of lock '{}' for owner {} failed", key, owner, e);
    }
  }

  /** Routes store-initiated events to the leases they concern. */
  private final class Events implements StoreListener {
    @Override
    public void holdLost(LockKey key, String owner, long token, String reason) {
      for (EngineLease lease : new ArrayList<>(leases)) {
        if (lease.key().equals(key) && lease.owner().equals(owner) && lease.token() == token) {
          lease.lose(new LeaseLostException(key.name(), Kind.NOT_HELD, reason));
        }
      }
    }

    @Override
    public void suspended() {
      for (EngineLease lease : new ArrayList<>(leases)) {
        lease.suspend();
      }
    }

    @Override
    public void resumed() {
      for (EngineLease lease : new ArrayList<>(leases)) {
        lease.resume();
      }
    }

    @Override
    public void sessionLost(String reason) {
      for (EngineLease lease : new ArrayList<>(leases)) {
        lease.lose(new LeaseLostException(lease.name(), Kind.SESSION_LOST, reason));
      }
      // A waiter's place (a queue node, a watch) went with the session: it asks the store at once,
      // which tells it, instead of sleeping until its next turn.
      waiting.forEach(WakeSignal::signal);
    }
  }
}
