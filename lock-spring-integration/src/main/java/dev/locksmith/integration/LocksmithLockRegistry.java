package dev.locksmith.integration;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.integration.internal.RegistryLock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} backed by
 * any Locksmith store: Redis, memcached, ZooKeeper, etcd, SQL or {@code mem:}, whichever {@link
 * LockClient} it is given.
 *
 * <pre>{@code
 * @Bean
 * LockRegistry lockRegistry(LockClient client) {
 *   return new LocksmithLockRegistry(client);
 * }
 * }</pre>
 *
 * <p>{@link #obtain(Object)} returns one {@link Lock} per key (the key's {@code toString()} is the
 * lock's name in the store), cached until {@link #expireUnusedOlderThan(long)} drops it. The lock
 * is owned by the thread that locks it and reentrant for that thread, as with Spring Integration's
 * Redis and JDBC registries: a local {@link java.util.concurrent.locks.ReentrantLock} orders this
 * registry's threads, and the holding thread keeps one Locksmith lease in the store, which excludes
 * every other registry, client and process. {@code lock()} waits without being interruptible,
 * {@code lockInterruptibly()} and {@code tryLock(time, unit)} end with {@link InterruptedException}
 * when interrupted (nothing held), {@code newCondition()} is refused.
 *
 * <p>Leases last the registry's lease time (the client's by default) and are renewed by the
 * client's watchdog at a third of it while held when the client auto-renews (the default), so a
 * hold never expires under a slow holder; {@link #renewLock(Object)} extends the calling thread's
 * hold explicitly (needed only with {@code autoRenew=false}). Each nested acquire confirms the hold
 * in the store, so a hold lost there (expired, deleted, session ended) is reported to its thread at
 * its next {@code lock()}/{@code tryLock()} and at {@code unlock()}.
 *
 * <p>Failures: a store that cannot be reached fails an acquire with {@link
 * org.springframework.dao.CannotAcquireLockException} (nothing is held) and a release with {@link
 * org.springframework.dao.DataAccessResourceFailureException}; a hold lost in the store makes
 * {@code unlock()} and nested acquires throw {@link java.util.ConcurrentModificationException} (as
 * Spring Integration's registries do) with Locksmith's {@link dev.locksmith.LeaseLostException} as
 * the cause; {@code unlock()} by a thread that does not hold the lock throws {@link
 * IllegalMonitorStateException}. The registry does not own the client: close the client yourself.
 * Instances are thread-safe.
 */
public final class LocksmithLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {

  // Probes the lease time against the store's limits once, at construction (no store call).
  private static final String LEASE_PROBE_NAME = "locksmith-lock-registry";

  private final LockClient client;
  private final Duration leaseTime;
  private final ConcurrentHashMap<String, RegistryLock> locks = new ConcurrentHashMap<>();

  /**
   * A registry whose holds last the client's lease time ({@code leaseTime} in the client's URI or
   * options, 30 s by default).
   *
   * @throws NullPointerException if {@code client} is null
   * @throws IllegalStateException if the client was closed
   */
  public LocksmithLockRegistry(LockClient client) {
    this(client, Objects.requireNonNull(client, "client must not be null").options().leaseTime());
  }

  /**
   * A registry whose holds last {@code leaseTime} (Spring Integration's {@code expireAfter}, or
   * TTL), renewed while held if the client auto-renews.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code leaseTime} is not positive, is shorter than the
   *     store's minimum lease or longer than {@link dev.locksmith.LockOptions#MAX_LEASE_TIME}
   * @throws IllegalStateException if the client was closed
   */
  public LocksmithLockRegistry(LockClient client, Duration leaseTime) {
    this.client = Objects.requireNonNull(client, "client must not be null");
    Objects.requireNonNull(leaseTime, "leaseTime must not be null");
    if (leaseTime.isZero() || leaseTime.isNegative()) {
      throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
    }
    client.lock(LEASE_PROBE_NAME).withLeaseTime(leaseTime);
    this.leaseTime = leaseTime;
  }

  /**
   * The lock for {@code lockKey}: the same instance for equal keys until it is expired.
   *
   * @throws NullPointerException if {@code lockKey} is null
   * @throws IllegalArgumentException if the key's {@code toString()} is null or not a valid lock
   *     name (blank, over 256 UTF-8 bytes, control characters)
   * @throws IllegalStateException if the client was closed
   */
  @Override
  public Lock obtain(Object lockKey) {
    String name = nameOf(lockKey);
    return locks.computeIfAbsent(name, this::newLock);
  }

  private RegistryLock newLock(String name) {
    DistributedLock store;
    try {
      store = client.lock(name).withLeaseTime(leaseTime);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "lockKey '" + name + "' is not a valid lock name: " + e.getMessage(), e);
    }
    return new RegistryLock(name, store, leaseTime);
  }

  private static String nameOf(Object lockKey) {
    Objects.requireNonNull(lockKey, "lockKey must not be null");
    String name = lockKey.toString();
    if (name == null) {
      throw new IllegalArgumentException(
          "lockKey's toString() returned null (a " + lockKey.getClass().getName() + ")");
    }
    return name;
  }

  /**
   * Drops the cached locks that no thread of this registry holds and that were last used at least
   * {@code age} milliseconds ago, so that keys used once do not pile up. A lock object still in use
   * elsewhere stays correct after being dropped: every hold is its own owner in the store, so it
   * still excludes the fresh lock that a later {@link #obtain} returns for the same key.
   *
   * @throws IllegalArgumentException if {@code age} is negative
   */
  @Override
  public void expireUnusedOlderThan(long age) {
    if (age < 0) {
      throw new IllegalArgumentException("age must not be negative, was " + age + " ms");
    }
    long now = System.nanoTime();
    long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
    locks
        .values()
        .removeIf(
            lock -> !lock.isAcquiredInThisProcess() && now - lock.lastUsedNanos() >= ageNanos);
  }

  /**
   * Extends the calling thread's hold on {@code lockKey} by the registry's lease time from now,
   * owner-checked in the store.
   *
   * @throws NullPointerException if {@code lockKey} is null
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock
   * @throws IllegalStateException if the hold was lost in the store
   * @throws org.springframework.dao.DataAccessResourceFailureException if the store failed
   */
  @Override
  public void renewLock(Object lockKey) {
    renewLock(lockKey, leaseTime);
  }

  /**
   * Extends the calling thread's hold on {@code lockKey} to {@code ttl} from now, owner-checked in
   * the store; the watchdog then keeps renewing it by {@code ttl}. This is Spring Integration 7's
   * {@code RenewableLockRegistry.renewLock(Object, Duration)}, available here on 6.5 as well.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code ttl} is not positive or outside the store's limits
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock
   * @throws IllegalStateException if the hold was lost in the store
   * @throws org.springframework.dao.DataAccessResourceFailureException if the store failed
   */
  public void renewLock(Object lockKey, Duration ttl) {
    String name = nameOf(lockKey);
    Objects.requireNonNull(ttl, "ttl must not be null");
    if (ttl.isZero() || ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    RegistryLock lock = locks.get(name);
    if (lock == null) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + name + "'");
    }
    lock.renew(ttl);
  }

  /**
   * Not used: the client's watchdog renews held leases (one scheduler per client). Accepted so that
   * configuration written for Spring Integration's registries keeps working.
   *
   * @throws NullPointerException if {@code renewalTaskScheduler} is null
   */
  @Override
  public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
    Objects.requireNonNull(renewalTaskScheduler, "renewalTaskScheduler must not be null");
  }

  /**
   * The calling thread's lease on {@code lockKey}, if it holds the lock: its {@link
   * Lease#fencingToken() fencing token} for the protected resource, and its expiry.
   *
   * @throws NullPointerException if {@code lockKey} is null
   */
  public Optional<Lease> currentLease(Object lockKey) {
    RegistryLock lock = locks.get(nameOf(lockKey));
    return lock == null ? Optional.empty() : lock.currentLease();
  }

  /** The lease time of this registry's holds. */
  public Duration leaseTime() {
    return leaseTime;
  }

  @Override
  public String toString() {
    return "LocksmithLockRegistry{client=" + client + ", leaseTime=" + leaseTime + "}";
  }
}
