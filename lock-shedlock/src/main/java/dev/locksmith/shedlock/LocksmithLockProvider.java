package dev.locksmith.shedlock;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.shedlock.internal.HeldLock;
import dev.locksmith.shedlock.internal.Hold;
import dev.locksmith.shedlock.internal.HoldTimers;
import dev.locksmith.shedlock.internal.JobLocks;
import dev.locksmith.shedlock.internal.ShortestLease;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock {@code LockProvider} that takes its locks in a Locksmith store: Redis, memcached,
 * ZooKeeper, etcd, a SQL database or {@code mem:}, whatever {@link LockClient} it is given.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider() {
 *   return LocksmithLockProvider.open("redis://localhost:6379");
 * }
 * }</pre>
 *
 * <p>What ShedLock promises, kept as follows:
 *
 * <ul>
 *   <li>{@link #lock} never waits: one {@link DistributedLock#tryAcquire()}; empty if anyone else
 *       holds the lock, including another {@code lock} call of this provider on the same thread
 *       (each call is an owner of its own: ShedLock locks are not reentrant).
 *   <li>{@code lockAtMostFor} is the lease, never renewed, measured from the acquire: the lock ends
 *       then even if the job still runs or this process died. Where the store would hold it longer
 *       (a store's shortest lease, memcached's and etcd's whole seconds, ZooKeeper's holds that
 *       last as long as the session) the provider releases it itself at {@code lockAtMostFor}; if
 *       the process died first, the store frees it at the end of its own lease or session.
 *   <li>{@code lockAtLeastFor}: {@code unlock()} leaves the lock taken until {@code lockAtLeastFor}
 *       after the acquire ({@link Lease#releaseHeldAtLeast}, kept by the store even if this process
 *       dies; below the store's shortest lease, kept by this provider and by the store's lease
 *       beyond it).
 *   <li>{@code extend(lockAtMostFor, lockAtLeastFor)} on a lock sets both from now and returns the
 *       lock that replaces it, or empty if the lock was lost (its {@code lockAtMostFor} passed, or
 *       the store no longer held it); either way the lock it was called on is done with, and throws
 *       {@link IllegalStateException} on {@code unlock} and {@code extend}, as ShedLock's own locks
 *       do.
 *   <li>A store failure is a ShedLock {@link LockException} whose cause is Locksmith's {@link
 *       LockStoreException}, never a lock that looks taken.
 * </ul>
 *
 * <p>Lock names are ShedLock's, after an optional prefix; a name Locksmith refuses (blank, over 256
 * UTF-8 bytes with the prefix, control characters) fails with an {@link IllegalArgumentException}
 * that names it. Inside a job, {@link #currentFencingToken()} gives the lock's fencing token.
 *
 * <p>Thread-safe. {@link #close()} stops the provider's timer thread, and closes the client if the
 * provider opened it.
 */
public final class LocksmithLockProvider implements ExtensibleLockProvider, AutoCloseable {

  private enum ClientOwner {
    CALLER,
    PROVIDER
  }

  private static final int MAX_PREFIX_BYTES = 128;

  private final LockClient client;
  private final String namePrefix;
  private final ClientOwner clientOwner;
  private final HoldTimers timers;
  private final ShortestLease shortest;
  private volatile boolean closed;

  /**
   * A provider whose locks are {@code client}'s locks of the same names. The caller keeps the
   * client: {@link #close()} does not close it.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public LocksmithLockProvider(LockClient client) {
    this(client, "");
  }

  /**
   * A provider whose lock {@code name} is {@code client}'s lock {@code namePrefix + name}. The
   * caller keeps the client: {@link #close()} does not close it.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code namePrefix} has control characters or is longer than
   *     128 UTF-8 bytes
   */
  public LocksmithLockProvider(LockClient client, String namePrefix) {
    this(
        Objects.requireNonNull(client, "client must not be null"),
        checkPrefix(namePrefix),
        ClientOwner.CALLER);
  }

  private LocksmithLockProvider(LockClient client, String namePrefix, ClientOwner clientOwner) {
    this.client = client;
    this.namePrefix = namePrefix;
    this.clientOwner = clientOwner;
    this.timers = new HoldTimers("locksmith-shedlock-timer");
    this.shortest = new ShortestLease(client);
  }

  /**
   * A provider on a client it opens for {@code uri} (see {@link LockClient#open(String)}) and
   * closes on {@link #close()}.
   *
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if the URI is malformed or has an unknown option
   * @throws dev.locksmith.UnsupportedLockUriException if no store module handles its scheme
   * @throws LockException if the store cannot be reached (the cause says why)
   */
  public static LocksmithLockProvider open(String uri) {
    return open(uri, "");
  }

  /**
   * A provider on a client it opens for {@code uri}, whose lock {@code name} is the store's lock
   * {@code namePrefix + name}; see {@link #open(String)}.
   *
   * @throws IllegalArgumentException also if {@code namePrefix} has control characters or is longer
   *     than 128 UTF-8 bytes
   */
  public static LocksmithLockProvider open(String uri, String namePrefix) {
    Objects.requireNonNull(uri, "uri must not be null");
    String prefix = checkPrefix(namePrefix);
    LockClient client;
    try {
      client = LockClient.open(uri);
    } catch (LockStoreException e) {
      throw new LockException("could not open the lock store for ShedLock: " + e.getMessage(), e);
    }
    return new LocksmithLockProvider(client, prefix, ClientOwner.PROVIDER);
  }

  /**
   * Takes the lock if nobody holds it, without waiting; see the class description for what {@code
   * lockAtMostFor} and {@code lockAtLeastFor} mean here.
   *
   * @return the lock, or empty if someone else holds it
   * @throws NullPointerException if {@code lockConfiguration} is null
   * @throws IllegalArgumentException if the name (with the prefix) is not a valid Locksmith lock
   *     name, or {@code lockAtMostFor} is not positive or over seven days
   * @throws LockException if the store failed (nothing is held)
   * @throws IllegalStateException if the provider or its client was closed
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
    Objects.requireNonNull(lockConfiguration, "lockConfiguration must not be null");
    Duration atMost = HeldLock.checkLockAtMostFor(lockConfiguration);
    if (closed) {
      throw new IllegalStateException("this LocksmithLockProvider was closed");
    }
    DistributedLock lock = storeLock(lockConfiguration.getName());
    // A hold of this provider on the name whose deadline has passed is ended now, not when the
    // timer thread gets to it.
    timers.settleDue(lock.name());
    long start = System.nanoTime();
    Optional<Lease> lease;
    try {
      lease = lock.withLeaseTime(shortest.storeLeaseFor(atMost)).withAutoRenew(false).tryAcquire();
    } catch (LockStoreException e) {
      throw new LockException(
          "could not lock ShedLock lock '" + lock.name() + "': " + e.getMessage(), e);
    }
    if (lease.isEmpty()) {
      return Optional.empty();
    }
    Hold hold =
        new Hold(
            lease.get(),
            lock,
            timers,
            shortest,
            start,
            atMost,
            lockConfiguration.getLockAtLeastFor());
    hold.start();
    JobLocks.push(hold);
    return Optional.of(new HeldLock(lockConfiguration, hold));
  }

  /**
   * The fencing token of the lock the calling thread holds through a Locksmith provider, for the
   * job to hand to what it writes ({@link Lease#fencingToken()}): inside a {@code @SchedulerLock}
   * method or a {@code LockingTaskExecutor} task, that task's lock (the innermost one if they
   * nest). Read it at the start of the job and pass it with every write: a resource that has seen a
   * higher token refuses the writes of a job whose lock expired meanwhile.
   *
   * @return the token, or empty if the calling thread holds no such lock now (none taken, unlocked,
   *     past its lockAtMostFor, or lost)
   * @throws dev.locksmith.UnsupportedCapabilityException if the lock's store has no fencing tokens
   *     (Redlock)
   */
  public static OptionalLong currentFencingToken() {
    return JobLocks.currentFencingToken();
  }

  /** The prefix put before every ShedLock name; empty for none. */
  public String namePrefix() {
    return namePrefix;
  }

  /**
   * Stops the provider: {@code lock} throws {@link IllegalStateException} afterwards. Locks still
   * held end as if this process had stopped: at the end of their store lease (ZooKeeper: of the
   * client's session). Closes the client if {@link #open} opened it (which releases its holds, but
   * not those kept for their lockAtLeastFor). Calling it again does nothing.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    timers.close();
    if (clientOwner == ClientOwner.PROVIDER) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "LocksmithLockProvider{"
        + client
        + (namePrefix.isEmpty() ? "" : ", namePrefix='" + namePrefix + "'")
        + "}";
  }

  private DistributedLock storeLock(String shedLockName) {
    String name = namePrefix + shedLockName;
    try {
      return client.lock(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "ShedLock lock name '"
              + printable(name)
              + "' is not a valid Locksmith lock name: "
              + e.getMessage(),
          e);
    }
  }

  private static String checkPrefix(@Nullable String namePrefix) {
    Objects.requireNonNull(namePrefix, "namePrefix must not be null");
    for (int i = 0; i < namePrefix.length(); i++) {
      if (Character.isISOControl(namePrefix.charAt(i))) {
        throw new IllegalArgumentException(
            "namePrefix must not contain control characters, found U+"
                + String.format("%04X", (int) namePrefix.charAt(i))
                + " at index "
                + i);
      }
    }
    int bytes = namePrefix.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PREFIX_BYTES) {
      throw new IllegalArgumentException(
          "namePrefix must be at most " + MAX_PREFIX_BYTES + " UTF-8 bytes, was " + bytes);
    }
    return namePrefix;
  }

  /** The name with control characters shown as escapes, so that the message stays one line. */
  private static String printable(String name) {
    StringBuilder b = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isISOControl(c)) {
        b.append(String.format("\\u%04X", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.length() > 300 ? b.substring(0, 300) + "…" : b.toString();
  }
}
