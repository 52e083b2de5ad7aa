package dev.locksmith.spring.internal;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.MultiLock;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The client of a store that could not be reached when the application started ({@code
 * locksmith.startup=lenient}): it opens the real client in the background, retrying with backoff
 * ({@link #FIRST_RETRY} doubling up to {@link #MAX_RETRY}), and until then fails every call that
 * needs the store at once with a {@link LockStoreException} that says so. Once open, it passes
 * every call on; the outage that began at startup ends, in the log, when it opens.
 *
 * <p>{@link #lock(String)} works before the store answers, so that beans may take their locks while
 * they are created: it returns a lock that finds the real one at its first use. Its input is
 * checked at once, by the engine's own rules (an in-memory client's, which never holds anything);
 * what only the store can judge (its minimum lease, whether it has {@link Capability#REENTRANCY}
 * for {@link DistributedLock#withOwner}) is checked at the lock's first use after the store
 * answers. What depends on the store's capabilities ({@link #readWriteLock}, {@link #lockAll},
 * {@link #capabilities()}, {@link #minimumLease()}) and a lock's thread view ({@link
 * DistributedLock#asLock()}) fail at once with the same {@link LockStoreException} until then.
 * After {@link #close()} no attempt is made any more and every call throws {@link
 * IllegalStateException}.
 */
final class DeferredLockClient implements LockClient {

  /** The first pause before opening again; it doubles up to {@link #MAX_RETRY}. */
  static final Duration FIRST_RETRY = Duration.ofMillis(500);

  /** The longest pause between two attempts to open. */
  static final Duration MAX_RETRY = Duration.ofSeconds(5);

  // Checks names, lease times and owners with the engine's rules before the store answers.
  private final LockClient rules =
      LockClient.of(new MemLockStore(MemLockSpace.named("locksmith-spring-input-checks")));

  private final Supplier<LockClient> opener;
  private final LockOptions options;
  private final StoreOutage outage;
  final ScheduledThreadPoolExecutor retries; // package-private: tests see that close stops it
  private volatile @Nullable LockClient delegate; // written under this
  private volatile RuntimeException lastFailure;
  private boolean closed; // guarded by this
  private long nextDelayMillis = FIRST_RETRY.toMillis(); // the retry thread's own

  /**
   * A client whose first attempt, stamped {@code started} ({@link StoreOutage#now()}), failed with
   * {@code failure}; {@code opener} opens the real one (with {@code options}). Reports the outage
   * and starts retrying.
   */
  DeferredLockClient(
      Supplier<LockClient> opener,
      LockOptions options,
      StoreOutage outage,
      long started,
      RuntimeException failure) {
    this.opener = Objects.requireNonNull(opener, "opener must not be null");
    this.options = Objects.requireNonNull(options, "options must not be null");
    this.outage = Objects.requireNonNull(outage, "outage must not be null");
    this.lastFailure = Objects.requireNonNull(failure, "failure must not be null");
    this.retries =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "locksmith-connect");
              t.setDaemon(true);
              return t;
            });
    retries.setRemoveOnCancelPolicy(true);
    outage.unreachableAtStartup(started, failure);
    schedule();
  }

  /** Whether the real client is open. */
  boolean isOpen() {
    return delegate != null;
  }

  private void schedule() {
    long delay = nextDelayMillis;
    nextDelayMillis = Math.min(delay * 2, MAX_RETRY.toMillis());
    retries.schedule(this::tryOpen, delay, TimeUnit.MILLISECONDS);
  }

  private void tryOpen() {
    synchronized (this) {
      if (closed) {
        return;
      }
    }
    long started = StoreOutage.now();
    LockClient opened;
    try {
      opened = opener.get();
    } catch (RuntimeException e) {
      lastFailure = e;
      outage.failed(started, "Opening the client", e);
      synchronized (this) {
        if (!closed) {
          schedule();
        }
      }
      return;
    }
    synchronized (this) {
      if (closed) {
        opened.close();
        return;
      }
      delegate = opened;
    }
    retries.shutdown();
    outage.answered(started);
  }

  /** The real client, or a failure saying that the store has not answered yet. */
  private LockClient open() {
    LockClient c = delegate;
    if (c != null) {
      return c;
    }
    requireNotClosed();
    RuntimeException last = lastFailure;
    throw new LockStoreException(
        "lock store "
            + outage.store()
            + " has not answered since the application started ("
            + StoreOutage.cause(last)
            + "); Locksmith keeps trying to connect (locksmith.startup=lenient)",
        last);
  }

  private synchronized void requireNotClosed() {
    if (closed) {
      throw new IllegalStateException("the LockClient is closed");
    }
  }

  @Override
  public DistributedLock lock(String name) {
    LockClient c = delegate;
    if (c != null) {
      return c.lock(name);
    }
    requireNotClosed();
    return new DeferredLock(rules.lock(name), UnaryOperator.identity());
  }

  @Override
  public DistributedReadWriteLock readWriteLock(String name) {
    return open().readWriteLock(name);
  }

  @Override
  public MultiLock lockAll(Collection<String> names) {
    return open().lockAll(names);
  }

  @Override
  public MultiLock lockAll(String... names) {
    return open().lockAll(names);
  }

  @Override
  public Set<Capability> capabilities() {
    return open().capabilities();
  }

  @Override
  public Duration minimumLease() {
    return open().minimumLease();
  }

  @Override
  public LockOptions options() {
    LockClient c = delegate;
    return c != null ? c.options() : options;
  }

  @Override
  public void close() {
    LockClient c;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      c = delegate;
    }
    retries.shutdownNow();
    rules.close();
    if (c != null) {
      c.close();
    }
  }

  @Override
  public String toString() {
    return "LockClient{" + outage.store() + (isOpen() ? "" : ", not connected yet") + "}";
  }

  /**
   * A lock taken before the store answered. {@code checked} is the same lock on the input-checking
   * client (so every {@code with…} is checked when it is called); {@code setup} replays those calls
   * on the real lock, found at the first use after the store answers.
   */
  private final class DeferredLock implements DistributedLock {
    private final DistributedLock checked;
    private final UnaryOperator<DistributedLock> setup;
    private volatile @Nullable DistributedLock real;

    DeferredLock(DistributedLock checked, UnaryOperator<DistributedLock> setup) {
      this.checked = checked;
      this.setup = setup;
    }

    private DistributedLock real() {
      DistributedLock l = real;
      if (l == null) {
        l = setup.apply(open().lock(checked.name()));
        real = l;
      }
      return l;
    }

    private DistributedLock then(DistributedLock checkedNext, UnaryOperator<DistributedLock> step) {
      DistributedLock l = real;
      return l != null
          ? step.apply(l)
          : new DeferredLock(checkedNext, lock -> step.apply(setup.apply(lock)));
    }

    @Override
    public String name() {
      return checked.name();
    }

    @Override
    public Optional<Lease> tryAcquire() {
      return real().tryAcquire();
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
      return real().tryAcquire(wait);
    }

    @Override
    public Lease acquire() throws InterruptedException {
      return real().acquire();
    }

    @Override
    public Lease acquire(Duration wait) throws InterruptedException {
      return real().acquire(wait);
    }

    @Override
    public boolean isLocked() {
      return real().isLocked();
    }

    @Override
    public DistributedLock withLeaseTime(Duration leaseTime) {
      return then(checked.withLeaseTime(leaseTime), l -> l.withLeaseTime(leaseTime));
    }

    @Override
    public DistributedLock withAutoRenew(boolean autoRenew) {
      return then(checked.withAutoRenew(autoRenew), l -> l.withAutoRenew(autoRenew));
    }

    @Override
    public DistributedLock withOwner(String owner) {
      return then(checked.withOwner(owner), l -> l.withOwner(owner));
    }

    @Override
    public ThreadOwnedLock asLock() {
      return real().asLock();
    }

    @Override
    public String toString() {
      return "DistributedLock{" + checked.name() + " on " + outage.store() + "}";
    }
  }
}
