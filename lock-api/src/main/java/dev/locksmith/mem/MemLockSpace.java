package dev.locksmith.mem;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import org.jspecify.annotations.Nullable;

/**
 * The shared state behind {@code mem:NAME}: the "server" that every {@link MemLockStore} of that
 * name talks to. All operations are atomic under one monitor; time is {@link System#nanoTime()}.
 *
 * <p>It also stands in for a server that fails, for tests: {@link #startOutage()} makes every
 * operation fail as if the server were unreachable (time keeps running, so leases expire) until
 * {@link #endOutage()}, and {@link #restart()} drops every hold as a server that lost its memory
 * would, keeping the fencing counters (the space models a store whose counters are durable).
 */
public final class MemLockSpace {

  private static final ConcurrentHashMap<String, MemLockSpace> SPACES = new ConcurrentHashMap<>();

  private final String name;
  private final Map<String, Hold> exclusive = new HashMap<>();
  private final Map<String, ReadWrite> readWrite = new HashMap<>();
  // The last token handed out, shared by every lock of the space as a database sequence is: a
  // released lock leaves nothing behind, and tokens still rise per name.
  private long lastToken;
  // When expired holds and empty records were last swept out (System.nanoTime()).
  private long sweptAt = System.nanoTime();
  private final Map<String, Set<Runnable>> releaseListeners = new ConcurrentHashMap<>();
  // Waiters' places per lock (exclusive, or both sides of a read-write lock), oldest first.
  private final Map<String, Deque<Place>> queues = new HashMap<>();
  private volatile boolean unavailable;

  private MemLockSpace(String name) {
    this.name = name;
  }

  /** The space called {@code name}, created on first use and shared for the life of the JVM. */
  public static MemLockSpace named(String name) {
    Objects.requireNonNull(name, "name must not be null");
    return SPACES.computeIfAbsent(name, MemLockSpace::new);
  }

  /** The space's name. */
  public String name() {
    return name;
  }

  /**
   * Makes every operation fail with {@link LockStoreException} until {@link #endOutage()}; holds
   * stay, and keep expiring. Starting an outage that is in force changes nothing.
   */
  public void startOutage() {
    this.unavailable = true;
  }

  /** Makes operations work again after {@link #startOutage()}; without an outage, does nothing. */
  public void endOutage() {
    this.unavailable = false;
  }

  /** Whether an outage is in force. */
  public boolean isDown() {
    return unavailable;
  }

  /** Drops every hold, as a restart of a store without persistence would; counters survive. */
  public void restart() {
    List<Runnable> wake;
    synchronized (this) {
      exclusive.clear();
      readWrite.clear();
      wake = allListeners();
    }
    wake.forEach(Runnable::run);
  }

  /**
   * Deletes every hold of kind {@code mode} on the lock called {@code name} (as the store holds it,
   * with any key prefix), as an operator deleting a lock in a real store would; the holders find
   * out at their next renewal.
   */
  public void deleteHolds(String name, LockMode mode) {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(mode, "mode must not be null");
    List<Runnable> wake;
    synchronized (this) {
      switch (mode) {
        case EXCLUSIVE:
          exclusive.remove(name);
          break;
        case WRITE:
          readWrite.computeIfPresent(
              name,
              (k, rw) -> {
                rw.writer = null;
                return rw;
              });
          break;
        default:
          readWrite.computeIfPresent(
              name,
              (k, rw) -> {
                rw.readers.clear();
                return rw;
              });
      }
      wake = allListeners();
    }
    wake.forEach(Runnable::run);
  }

  /**
   * How many records the space keeps for locks of clients with {@code keyPrefix}: holds (live or
   * expired but not yet swept), read-write records, queues and release-listener sets. For tests and
   * the kit's footprint rules; the token counter, shared by the whole space, is not counted.
   */
  public synchronized long entries(String keyPrefix) {
    Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    long n = 0;
    for (String lock : exclusive.keySet()) {
      n += underPrefix(lock, keyPrefix) ? 1 : 0;
    }
    for (String lock : readWrite.keySet()) {
      n += underPrefix(lock, keyPrefix) ? 1 : 0;
    }
    for (String group : queues.keySet()) {
      n += underPrefix(lockOf(group), keyPrefix) ? 1 : 0;
    }
    for (String group : releaseListeners.keySet()) {
      n += underPrefix(lockOf(group), keyPrefix) ? 1 : 0;
    }
    return n;
  }

  /**
   * Drops every record of clients with {@code keyPrefix} that no live hold needs (expired holds,
   * lapsed marks, emptied records), as a store under memory pressure would. The token counter
   * stays: the space models a store whose counter is durable, as a database sequence is.
   */
  public synchronized void evictIdle(String keyPrefix) {
    Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    long now = System.nanoTime();
    exclusive
        .entrySet()
        .removeIf(e -> underPrefix(e.getKey(), keyPrefix) && e.getValue().expires - now <= 0);
    readWrite
        .entrySet()
        .removeIf(
            e -> {
              if (!underPrefix(e.getKey(), keyPrefix)) {
                return false;
              }
              e.getValue().purge(now);
              return e.getValue().isEmpty();
            });
  }

  private static boolean underPrefix(String storedName, String keyPrefix) {
    int separator = storedName.indexOf(LockKey.PREFIX_SEPARATOR);
    return keyPrefix.isEmpty()
        ? separator < 0
        : separator == keyPrefix.length() && storedName.startsWith(keyPrefix);
  }

  private static String lockOf(String group) {
    return group.substring(group.indexOf(':') + 1);
  }

  // The store operations.

  Acquisition tryAcquire(LockKey key, String owner, long leaseNanos) {
    checkUp();
    long now = System.nanoTime();
    synchronized (this) {
      sweepIfDue(now);
      return acquire(key, owner, leaseNanos, now);
    }
  }

  private Acquisition acquire(LockKey key, String owner, long leaseNanos, long now) {
    switch (key.mode()) {
      case EXCLUSIVE:
        return acquireExclusive(key.name(), owner, leaseNanos, now);
      case WRITE:
        return acquireWrite(key.name(), owner, leaseNanos, now);
      default:
        return acquireRead(key.name(), owner, leaseNanos, now);
    }
  }

  /**
   * Puts {@code owner} at the end of the waiters' queue of {@code key}: it may take the lock only
   * when every place ahead of it has left (acquired or given up), as a ZooKeeper sequential node
   * does. A tryAcquire outside the queue may still take a free lock ahead of the queue, as {@link
   * java.util.concurrent.locks.ReentrantLock#tryLock()} does on a fair lock.
   */
  QueuedAttempt enqueue(LockKey key, String owner, long leaseNanos) {
    checkUp();
    Place place = new Place(key, owner, leaseNanos);
    synchronized (this) {
      queues.computeIfAbsent(group(key), k -> new ArrayDeque<>()).addLast(place);
    }
    return place;
  }

  private Acquisition acquireExclusive(String lock, String owner, long leaseNanos, long now) {
    Hold h = live(exclusive, lock, now);
    if (h == null) {
      long token = nextToken();
      exclusive.put(lock, new Hold(owner, token, now + leaseNanos));
      return Acquisition.acquired(token, 1);
    }
    if (h.owner.equals(owner)) {
      h.holds++;
      h.expires = now + leaseNanos;
      return Acquisition.acquired(h.token, h.holds);
    }
    return Acquisition.busy(Duration.ofNanos(h.expires - now));
  }

  private Acquisition acquireWrite(String lock, String owner, long leaseNanos, long now) {
    ReadWrite rw = readWrite.computeIfAbsent(lock, k -> new ReadWrite());
    rw.purge(now);
    if (rw.writer != null) {
      if (rw.writer.owner.equals(owner)) {
        rw.writer.holds++;
        rw.writer.expires = now + leaseNanos;
        return Acquisition.acquired(rw.writer.token, rw.writer.holds);
      }
      rw.waitingWriters.put(owner, now + leaseNanos);
      return Acquisition.busy(Duration.ofNanos(rw.writer.expires - now));
    }
    if (!rw.readers.isEmpty()) {
      // A waiting writer keeps new readers out until it acquires or withdraws.
      rw.waitingWriters.put(owner, now + leaseNanos);
      return Acquisition.busy(Duration.ofNanos(rw.latestReaderExpiry() - now));
    }
    rw.waitingWriters.remove(owner);
    long token = nextToken();
    rw.writer = new Hold(owner, token, now + leaseNanos);
    return Acquisition.acquired(token, 1);
  }

  private Acquisition acquireRead(String lock, String owner, long leaseNanos, long now) {
    ReadWrite rw = readWrite.computeIfAbsent(lock, k -> new ReadWrite());
    rw.purge(now);
    if (rw.writer != null && !rw.writer.owner.equals(owner)) {
      return Acquisition.busy(Duration.ofNanos(rw.writer.expires - now));
    }
    Hold mine = rw.readers.get(owner);
    if (mine == null && rw.hasWaitingWriterOtherThan(owner)) {
      return Acquisition.busy();
    }
    // The last token handed out: at least the last writer's, and every later writer's is greater.
    long token = lastToken;
    if (mine == null) {
      rw.readers.put(owner, new Hold(owner, token, now + leaseNanos));
      return Acquisition.acquired(token, 1);
    }
    mine.holds++;
    mine.expires = now + leaseNanos;
    return Acquisition.acquired(mine.token, mine.holds);
  }

  boolean extend(LockKey key, String owner, long leaseNanos) {
    checkUp();
    long now = System.nanoTime();
    synchronized (this) {
      Hold h = holdOf(key, owner, now);
      if (h == null) {
        return false;
      }
      h.expires = now + leaseNanos;
      return true;
    }
  }

  ReleaseOutcome release(LockKey key, String owner) {
    checkUp();
    long now = System.nanoTime();
    List<Runnable> wake;
    synchronized (this) {
      Hold h = holdOf(key, owner, now);
      if (h == null) {
        return ReleaseOutcome.NOT_HELD;
      }
      if (--h.holds > 0) {
        return ReleaseOutcome.HOLD_DECREMENTED;
      }
      switch (key.mode()) {
        case EXCLUSIVE:
          exclusive.remove(key.name());
          break;
        case WRITE:
          readWrite.get(key.name()).writer = null;
          dropIfEmpty(key.name());
          break;
        default:
          readWrite.get(key.name()).readers.remove(owner);
          dropIfEmpty(key.name());
          break;
      }
      wake = listenersOf(key);
    }
    wake.forEach(Runnable::run);
    return ReleaseOutcome.RELEASED;
  }

  LockState read(LockKey key) {
    checkUp();
    long now = System.nanoTime();
    synchronized (this) {
      if (key.mode() == LockMode.EXCLUSIVE) {
        Hold h = live(exclusive, key.name(), now);
        return h == null
            ? LockState.FREE
            : LockState.heldBy(h.owner, h.holds, Duration.ofNanos(h.expires - now));
      }
      ReadWrite rw = readWrite.get(key.name());
      if (rw == null) {
        return LockState.FREE;
      }
      rw.purge(now);
      if (rw.writer != null) {
        return LockState.heldBy(
            rw.writer.owner, rw.writer.holds, Duration.ofNanos(rw.writer.expires - now));
      }
      if (!rw.readers.isEmpty() && key.mode() == LockMode.READ) {
        return LockState.heldByReaders(rw.readers.size());
      }
      return rw.readers.isEmpty() ? LockState.FREE : LockState.heldByReaders(rw.readers.size());
    }
  }

  void withdraw(LockKey key, String owner) {
    checkUp();
    synchronized (this) {
      ReadWrite rw = readWrite.get(key.name());
      if (rw != null && key.mode() == LockMode.WRITE) {
        rw.waitingWriters.remove(owner);
        dropIfEmpty(key.name());
      }
    }
    // Readers kept out by this writer may go now.
    listenersOf(key).forEach(Runnable::run);
  }

  AutoCloseable onRelease(LockKey key, Runnable listener) {
    checkUp();
    // Added inside compute, so that a set being emptied and removed by an unsubscribe at the same
    // time either keeps this listener or is replaced by a new set that has it.
    Set<Runnable> set =
        releaseListeners.compute(
            group(key),
            (k, current) -> {
              Set<Runnable> s = current != null ? current : new CopyOnWriteArraySet<>();
              s.add(listener);
              return s;
            });
    return () -> {
      set.remove(listener);
      // An emptied set goes, unless a new listener came meanwhile: nothing stays per name.
      releaseListeners.computeIfPresent(group(key), (k, s) -> s.isEmpty() ? null : s);
    };
  }

  /** How many release listeners are registered, over every lock (for tests of clean-up). */
  int releaseListenerCount() {
    return releaseListeners.values().stream().mapToInt(Set::size).sum();
  }

  // Internals.

  private void checkUp() {
    if (unavailable) {
      throw new LockStoreException(
          "mem:" + name + " is unavailable (an outage was injected for a test)");
    }
  }

  private long nextToken() {
    return ++lastToken;
  }

  /** How often the operations sweep out what expired holds left behind. */
  private static final long SWEEP_INTERVAL_NANOS = Duration.ofMillis(100).toNanos();

  /**
   * Removes expired holds, lapsed waiting marks and emptied read-write records, at most once per
   * {@link #SWEEP_INTERVAL_NANOS}: a crashed holder's record would otherwise stay until someone
   * used its name again. Called under the monitor.
   */
  private void sweepIfDue(long now) {
    if (now - sweptAt < SWEEP_INTERVAL_NANOS) {
      return;
    }
    sweptAt = now;
    exclusive.values().removeIf(h -> h.expires - now <= 0);
    for (Iterator<ReadWrite> it = readWrite.values().iterator(); it.hasNext(); ) {
      ReadWrite rw = it.next();
      rw.purge(now);
      if (rw.isEmpty()) {
        it.remove();
      }
    }
  }

  /** Forgets the read-write record of {@code lock} if nothing is left in it. */
  private void dropIfEmpty(String lock) {
    ReadWrite rw = readWrite.get(lock);
    if (rw != null && rw.isEmpty()) {
      readWrite.remove(lock);
    }
  }

  private @Nullable Hold holdOf(LockKey key, String owner, long now) {
    Hold h;
    switch (key.mode()) {
      case EXCLUSIVE:
        h = live(exclusive, key.name(), now);
        break;
      case WRITE:
        {
          ReadWrite rw = readWrite.get(key.name());
          if (rw == null) {
            return null;
          }
          rw.purge(now);
          h = rw.writer;
          break;
        }
      default:
        {
          ReadWrite rw = readWrite.get(key.name());
          if (rw == null) {
            return null;
          }
          rw.purge(now);
          h = rw.readers.get(owner);
          break;
        }
    }
    return h != null && h.owner.equals(owner) ? h : null;
  }

  private static @Nullable Hold live(Map<String, Hold> map, String lock, long now) {
    Hold h = map.get(lock);
    if (h != null && h.expires - now <= 0) {
      map.remove(lock);
      return null;
    }
    return h;
  }

  private static String group(LockKey key) {
    return (key.mode() == LockMode.EXCLUSIVE ? "x:" : "rw:") + key.name();
  }

  private List<Runnable> listenersOf(LockKey key) {
    Set<Runnable> set = releaseListeners.get(group(key));
    return set == null ? List.of() : new ArrayList<>(set);
  }

  private List<Runnable> allListeners() {
    List<Runnable> all = new ArrayList<>();
    releaseListeners.values().forEach(all::addAll);
    return all;
  }

  /** A waiter's place in a queue: it polls the lock only while no place is ahead of it. */
  private final class Place implements QueuedAttempt {
    private final LockKey key;
    private final String owner;
    private final long leaseNanos;
    private boolean done; // guarded by the space
    private @Nullable AutoCloseable watch;

    Place(LockKey key, String owner, long leaseNanos) {
      this.key = key;
      this.owner = owner;
      this.leaseNanos = leaseNanos;
    }

    @Override
    public Acquisition poll() {
      checkUp();
      long now = System.nanoTime();
      Acquisition a;
      synchronized (MemLockSpace.this) {
        Deque<Place> queue = queues.get(group(key));
        if (done || queue == null || queue.peekFirst() != this) {
          return Acquisition.busy(); // Not our turn: the place ahead of us signals when it leaves.
        }
        a = acquire(key, owner, leaseNanos, now);
        if (!a.isAcquired()) {
          return a;
        }
        leave(queue);
      }
      // The engine closes only places that did not acquire: stop listening now, or this waiter's
      // signal would be run at every later release of the lock.
      closeWatch(watch);
      watch = null;
      // Readers behind a reader may take their turn at once.
      listenersOf(key).forEach(Runnable::run);
      return a;
    }

    @Override
    public void awaitChange(Runnable signal) {
      checkUp();
      AutoCloseable previous = watch;
      watch = onRelease(key, signal);
      closeWatch(previous);
    }

    @Override
    public void close() {
      synchronized (MemLockSpace.this) {
        Deque<Place> queue = queues.get(group(key));
        if (done || queue == null) {
          return;
        }
        leave(queue);
        ReadWrite rw = readWrite.get(key.name());
        if (rw != null && key.mode() == LockMode.WRITE) {
          rw.waitingWriters.remove(owner);
        }
      }
      closeWatch(watch);
      listenersOf(key).forEach(Runnable::run); // The place behind ours may be first now.
    }

    private void leave(Deque<Place> queue) {
      done = true;
      queue.remove(this);
      if (queue.isEmpty()) {
        queues.remove(group(key));
      }
    }

    private void closeWatch(@Nullable AutoCloseable w) {
      if (w != null) {
        try {
          w.close();
        } catch (Exception e) {
          throw new IllegalStateException(e); // Our own handles only remove a set entry.
        }
      }
    }
  }

  /** One owner's hold: exclusive, writer or reader. */
  private static final class Hold {
    final String owner;
    final long token;
    long expires;
    int holds = 1;

    Hold(String owner, long token, long expires) {
      this.owner = owner;
      this.token = token;
      this.expires = expires;
    }
  }

  /** The state of one read-write lock. */
  private static final class ReadWrite {
    @Nullable Hold writer;
    final Map<String, Hold> readers = new HashMap<>();
    final Map<String, Long> waitingWriters = new HashMap<>();

    void purge(long now) {
      if (writer != null && writer.expires - now <= 0) {
        writer = null;
      }
      readers.values().removeIf(r -> r.expires - now <= 0);
      for (Iterator<Long> it = waitingWriters.values().iterator(); it.hasNext(); ) {
        if (it.next() - now <= 0) {
          it.remove();
        }
      }
    }

    boolean isEmpty() {
      return writer == null && readers.isEmpty() && waitingWriters.isEmpty();
    }

    boolean hasWaitingWriterOtherThan(String owner) {
      return waitingWriters.keySet().stream().anyMatch(w -> !w.equals(owner));
    }

    long latestReaderExpiry() {
      return readers.values().stream().mapToLong(r -> r.expires).max().orElse(0);
    }
  }
}
