package dev.locksmith.etcd;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.etcd.internal.EtcdGateway;
import dev.locksmith.etcd.internal.EtcdKv;
import dev.locksmith.etcd.internal.EtcdKv.Txn;
import dev.locksmith.etcd.internal.EtcdKv.TxnResult;
import dev.locksmith.etcd.internal.HoldRecord;
import dev.locksmith.etcd.internal.KeyValue;
import dev.locksmith.etcd.internal.LockKeys;
import dev.locksmith.etcd.internal.ReleaseWatch;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockStore} on etcd v3: each hold is a key attached to an etcd lease of its own, and the
 * key's create revision is its fencing token. Open it with {@code
 * LockClient.open("etcd://host:2379")} ({@link EtcdLockProvider}).
 *
 * <p>A lock is the key {@code <prefix>lock/<name>} (name in UTF-8; a prefix containing {@code
 * lock/} is refused, so that no two prefixes share a key), whose value records the owner, its
 * nested holds and the lease time in whole seconds ({@link HoldRecord}). Acquire grants a lease of
 * the lease time rounded up to whole seconds (etcd's TTLs are seconds) and runs one transaction: if
 * the key does not exist, put it on that lease; else read it. Re-entry, extend and release read the
 * key, check the owner, and write in a transaction that holds only if nobody wrote the key since
 * ({@code mod_revision}); so a release or extend after the lease ran out can never touch the next
 * holder's key. An extend with the hold's own lease time is a lease keep-alive (no Raft write); any
 * other lease time moves the key onto a new lease and revokes the old one.
 *
 * <p>Expiry is etcd's: the leader deletes the key when its lease runs out, on the server's clock,
 * up to about half a second late (etcd checks leases twice a second), and a leader change or a
 * restart gives every lease its full TTL again, so a hold may outlast its lease after one. Tokens
 * ({@code create_revision}) strictly increase across holders and survive a restart with the data
 * directory: {@link Capability#FENCING} and {@link Capability#DURABLE_FENCING}. Waiters are woken
 * by a watch on the key ({@link Capability#WAKE_ON_RELEASE}); a watch whose stream breaks opens a
 * new one and wakes its waiter, whose next attempt fails at once if its own link to etcd is dead
 * ({@link ReleaseWatch}). Read-write locks are not offered. A released lock leaves nothing in etcd:
 * the key is deleted and its lease revoked.
 *
 * <p>Failures (no member reachable, a timeout, an HTTP error) throw {@link LockStoreException}
 * whose message names the member and the reason; an acquire whose transaction may or may not have
 * been applied revokes the lease it granted, which deletes the key if it was written.
 */
public final class EtcdLockStore implements LockStore {

  /** The key prefix used when none is given. */
  public static final String DEFAULT_KEY_PREFIX = "locksmith/";

  /** Bound on optimistic retries of one operation; each retry means someone else wrote first. */
  private static final int MAX_ATTEMPTS = 100;

  private static final Set<Capability> PROMISES =
      Set.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);

  /** How many keep-alives or extends of a batch run at once. */
  private static final int PARALLEL_EXTENDS = 8;

  private static final AtomicInteger STORES = new AtomicInteger();

  private final EtcdKv etcd;
  private final String keyPrefix;
  private final LockKeys keys;
  private final String description;
  private final StoreTiming timing;
  // The threads of extendAll; they end after 30 s without work.
  private final ThreadPoolExecutor extenders;

  private EtcdLockStore(EtcdKv etcd, String keyPrefix, String description, StoreTiming timing) {
    this.etcd = etcd;
    this.keyPrefix = keyPrefix;
    this.keys = new LockKeys(keyPrefix);
    this.description = description;
    this.timing = timing;
    String threadName = "locksmith-etcd-" + STORES.incrementAndGet() + "-extend";
    this.extenders =
        new ThreadPoolExecutor(
            PARALLEL_EXTENDS,
            PARALLEL_EXTENDS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    this.extenders.allowCoreThreadTimeOut(true);
  }

  /**
   * Connects through {@code gateway} and learns the server's shortest lease: etcd silently raises a
   * TTL below its minimum (one and a half election timeouts, rounded up to seconds), so a 1 s lease
   * is granted once and its TTL read back.
   *
   * @throws LockStoreException if no member answers
   * @throws IllegalArgumentException if the key prefix contains {@code lock/} ({@link LockKeys})
   */
  static EtcdLockStore connect(EtcdGateway gateway, String keyPrefix, String description) {
    LockKeys.requireUsable(keyPrefix);
    EtcdKv etcd = new EtcdKv(gateway);
    long[] probe;
    try {
      gateway.authenticate();
      probe = etcd.grant(1);
    } catch (LockStoreException e) {
      throw new LockStoreException(
          "cannot open a lock store on " + description + ": " + e.getMessage(), e);
    }
    etcd.revokeInBackground(probe[0]);
    Duration minimum = Duration.ofSeconds(Math.max(1, probe[1]));
    return new EtcdLockStore(
        etcd, keyPrefix, description, new StoreTiming(minimum, Duration.ofSeconds(1)));
  }

  /** The etcd key of the lock called {@code name} (for tests and operators). */
  public byte[] lockKey(String name) {
    return keys.lock(name);
  }

  /** The etcd member ({@code host:port}) the next call goes to first. */
  public String currentMember() {
    return etcd.gateway().preferredMember();
  }

  /**
   * The etcd lease TTL, in whole seconds, for a lease of {@code leaseTime}: rounded up, so a hold
   * lasts at least as long as asked.
   */
  public static long ttlSeconds(Duration leaseTime) {
    long nanos = leaseTime.toNanos();
    return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public String keyPrefix() {
    return keyPrefix;
  }

  @Override
  public Set<Capability> promises() {
    return PROMISES;
  }

  /** Whole-second leases (etcd TTLs), no shorter than the server's minimum TTL. */
  @Override
  public StoreTiming timing() {
    return timing;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    long ttl = ttlSeconds(leaseTime);
    byte[] k = lockKey(key.name());
    long lease = etcd.grant(ttl)[0];
    boolean keepLease = false;
    try {
      for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        HoldRecord fresh = new HoldRecord(owner, 1, ttl);
        // If this throws, the put may have been applied: the finally block revokes the lease, which
        // deletes the key if it was written, so an unknown outcome leaves no hold behind.
        TxnResult r = etcd.commit(Txn.ifAbsent(k).thenPut(fresh.encode(), lease).elseGet());
        if (r.succeeded()) {
          keepLease = true;
          return Acquisition.acquired(r.revision(), 1);
        }
        KeyValue held = r.current();
        if (held == null) {
          continue;
        }
        HoldRecord record = decode(held, key);
        if (!record.owner().equals(owner)) {
          // The hint is the holder's whole lease: never shorter than what is left of it, and a
          // lookup of the remaining time (lease/timetolive) would cost every busy poll a round trip
          // while the engine's own back-off is far below a second anyway.
          return Acquisition.busy(Duration.ofSeconds(record.ttl()));
        }
        // Re-entry: move the key onto the new lease, so the lease restarts at leaseTime; the
        // create revision (the token) stays. Once this is sent the lease may carry the owner's
        // key, so it must not be revoked even if the answer is lost: it then simply runs out.
        keepLease = true;
        HoldRecord nested = record.nested(ttl);
        TxnResult n =
            etcd.commit(Txn.ifUnchanged(k, held.modRevision()).thenPut(nested.encode(), lease));
        if (n.succeeded()) {
          etcd.revokeInBackground(held.lease());
          return Acquisition.acquired(held.createRevision(), nested.holds());
        }
        keepLease = false;
      }
      throw notSettled("acquire", key);
    } finally {
      if (!keepLease) {
        etcd.revokeInBackground(lease);
      }
    }
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    long ttl = ttlSeconds(leaseTime);
    byte[] k = lockKey(key.name());
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      KeyValue held = etcd.get(k);
      HoldRecord record = held == null ? null : decode(held, key);
      if (record == null || !record.owner().equals(owner)) {
        return false;
      }
      if (record.ttl() == ttl && held.lease() != 0) {
        // Same lease time: a keep-alive restarts the lease at its TTL without a Raft write. The
        // key must still be on that lease afterwards (an outside delete leaves the lease alive).
        if (!etcd.keepAlive(held.lease())) {
          return false;
        }
        KeyValue after = etcd.get(k);
        if (after == null
            || after.createRevision() != held.createRevision()
            || !decode(after, key).owner().equals(owner)) {
          return false;
        }
        if (after.lease() == held.lease()) {
          return true;
        }
        continue; // The same owner re-entered meanwhile, onto another lease: renew that one.
      }
      long lease = etcd.grant(ttl)[0];
      boolean keepLease = true; // once sent, the new lease may carry the key: never revoke it blind
      try {
        TxnResult r =
            etcd.commit(
                Txn.ifUnchanged(k, held.modRevision())
                    .thenPut(record.withTtl(ttl).encode(), lease));
        if (r.succeeded()) {
          etcd.revokeInBackground(held.lease());
          return true;
        }
        keepLease = false;
      } finally {
        if (!keepLease) {
          etcd.revokeInBackground(lease);
        }
      }
    }
    throw notSettled("extend", key);
  }

  /**
   * The batch in a few requests per extension fewer: the keys are read together ({@link
   * EtcdKv#getAll}, one request per {@value EtcdKv#MAX_TXN_OPS} keys), the lease of each hold the
   * owner still has is kept alive, and the keys kept alive are read together again to see that they
   * are still on those leases, as {@link #extend} checks one key. An extension to another lease
   * time, or whose owner re-entered meanwhile (onto a new lease), is settled on its own by {@link
   * #extend}. Keep-alives and extends run {@value #PARALLEL_EXTENDS} at a time, since the JSON
   * gateway answers every request on its own: one extend after another (three requests each)
   * renewed about 80 leases a second on a 2-core machine and lost all of 2,000 leases of 5 s. The
   * first failure is thrown once every call of its step has ended.
   */
  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) throws Exception {
    boolean[] held = new boolean[extensions.size()];
    List<byte[]> keys = new ArrayList<>(extensions.size());
    for (LeaseExtension e : extensions) {
      keys.add(lockKey(e.key().name()));
    }
    List<@Nullable KeyValue> before = etcd.getAll(keys);
    List<Integer> keepAlive = new ArrayList<>();
    List<Integer> alone = new ArrayList<>();
    for (int i = 0; i < held.length; i++) {
      LeaseExtension e = extensions.get(i);
      KeyValue current = before.get(i);
      HoldRecord record = current == null ? null : decode(current, e.key());
      if (record == null || !record.owner().equals(e.owner())) {
        continue; // Not this owner's (any more): false, nothing written.
      }
      if (record.ttl() == ttlSeconds(e.leaseTime()) && current.lease() != 0) {
        keepAlive.add(i);
      } else {
        alone.add(i);
      }
    }
    boolean[] alive =
        eachTogether(keepAlive.size(), j -> etcd.keepAlive(leaseOf(before, keepAlive.get(j))));
    List<Integer> kept = new ArrayList<>();
    List<byte[]> keptKeys = new ArrayList<>();
    for (int j = 0; j < alive.length; j++) {
      if (alive[j]) {
        kept.add(keepAlive.get(j));
        keptKeys.add(keys.get(keepAlive.get(j)));
      }
    }
    List<@Nullable KeyValue> after = etcd.getAll(keptKeys);
    for (int j = 0; j < kept.size(); j++) {
      int i = kept.get(j);
      LeaseExtension e = extensions.get(i);
      KeyValue was = Objects.requireNonNull(before.get(i));
      KeyValue now = after.get(j);
      if (now == null
          || now.createRevision() != was.createRevision()
          || !decode(now, e.key()).owner().equals(e.owner())) {
        continue; // Released, expired or taken while the lease was kept alive: false.
      }
      if (now.lease() == was.lease()) {
        held[i] = true;
      } else {
        alone.add(i); // The same owner re-entered meanwhile, onto another lease: renew that one.
      }
    }
    boolean[] settled =
        eachTogether(
            alone.size(),
            j -> {
              LeaseExtension e = extensions.get(alone.get(j));
              return extend(e.key(), e.owner(), e.leaseTime());
            });
    for (int j = 0; j < settled.length; j++) {
      held[alone.get(j)] = settled[j];
    }
    return held;
  }

  private static long leaseOf(List<@Nullable KeyValue> keys, int index) {
    return Objects.requireNonNull(keys.get(index)).lease();
  }

  /**
   * Answers {@code call} for 0 … {@code count - 1}, {@value #PARALLEL_EXTENDS} at a time on the
   * store's extend threads (one call runs on the caller's thread); the answers in order, or the
   * first failure once every call has ended.
   */
  private boolean[] eachTogether(int count, IntPredicate call) throws InterruptedException {
    boolean[] answers = new boolean[count];
    if (count == 1) {
      answers[0] = call.test(0);
      return answers;
    }
    List<Future<Boolean>> pending = new ArrayList<>(count);
    for (int j = 0; j < count; j++) {
      int index = j;
      pending.add(extenders.submit(() -> call.test(index)));
    }
    RuntimeException failure = null;
    try {
      for (int j = 0; j < count; j++) {
        try {
          answers[j] = pending.get(j).get();
        } catch (ExecutionException e) {
          RuntimeException cause =
              e.getCause() instanceof RuntimeException r
                  ? r
                  : new LockStoreException("extend on " + description + " failed", e.getCause());
          if (failure == null) {
            failure = cause;
          } else if (failure != cause) {
            failure.addSuppressed(cause);
          }
        }
      }
    } catch (InterruptedException e) {
      pending.forEach(a -> a.cancel(true));
      throw e;
    }
    if (failure != null) {
      throw failure;
    }
    return answers;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    byte[] k = lockKey(key.name());
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      KeyValue held = etcd.get(k);
      if (held == null) {
        return ReleaseOutcome.NOT_HELD;
      }
      HoldRecord record = decode(held, key);
      if (!record.owner().equals(owner)) {
        return ReleaseOutcome.NOT_HELD;
      }
      if (record.holds() > 1) {
        Txn txn =
            Txn.ifUnchanged(k, held.modRevision()).thenPutKeepingLease(record.released().encode());
        if (etcd.commit(txn).succeeded()) {
          return ReleaseOutcome.HOLD_DECREMENTED;
        }
      } else if (etcd.commit(Txn.ifUnchanged(k, held.modRevision()).thenDelete()).succeeded()) {
        etcd.revokeInBackground(held.lease()); // the key is gone; the lease would only linger
        return ReleaseOutcome.RELEASED;
      }
    }
    throw notSettled("release", key);
  }

  @Override
  public LockState read(LockKey key) {
    KeyValue held = etcd.get(lockKey(key.name()));
    if (held == null) {
      return LockState.FREE;
    }
    HoldRecord record = decode(held, key);
    Duration remaining = null;
    if (held.lease() != 0) {
      long left = etcd.timeToLive(held.lease());
      remaining = Duration.ofSeconds(Math.max(0, left));
    }
    return LockState.heldBy(record.owner(), record.holds(), remaining);
  }

  /** Runs a waiter's callback whenever the lock's key is deleted (released or expired). */
  @Override
  public Optional<ReleasePush> releasePush() {
    return Optional.of(
        (key, onRelease) -> ReleaseWatch.open(etcd.gateway(), lockKey(key.name()), onRelease));
  }

  /** Closes the HTTP client. Holds stay until their leases run out, as with a crashed client. */
  @Override
  public void close() {
    extenders.shutdownNow();
    etcd.gateway().close();
  }

  private HoldRecord decode(KeyValue kv, LockKey key) {
    try {
      return HoldRecord.decode(kv.value());
    } catch (IllegalArgumentException e) {
      throw new LockStoreException(
          "the etcd key of lock '"
              + key.name()
              + "' on "
              + description
              + " holds something else ("
              + e.getMessage()
              + "); another program writes to this key, use another keyPrefix",
          e);
    }
  }

  private LockStoreException notSettled(String op, LockKey key) {
    return new LockStoreException(
        op
            + " of lock '"
            + key.name()
            + "' on "
            + description
            + " did not settle after "
            + MAX_ATTEMPTS
            + " attempts: its key kept changing under concurrent writes");
  }
}
