package dev.locksmith.memcached;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.memcached.internal.LockRecord;
import dev.locksmith.memcached.internal.StoreKeys;
import dev.locksmith.memcached.internal.TextTranscoder;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreTiming;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import net.spy.memcached.CASValue;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.ops.OperationStatus;
import net.spy.memcached.ops.StatusCode;
import net.spy.memcached.protocol.binary.BinaryMemcachedNodeImpl;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LockStore} on memcached: an {@code add} lock whose renewal, re-entry and release are
 * checked with CAS, over a spymemcached {@link MemcachedClient} that speaks the binary protocol.
 *
 * <pre>{@code
 * MemcachedClient memcached = new MemcachedClient(
 *     new ConnectionFactoryBuilder().setProtocol(Protocol.BINARY)
 *         .setFailureMode(FailureMode.Cancel).setOpTimeout(1000).build(),
 *     AddrUtil.getAddresses("cache1:11211"));
 * try (LockClient locks = LockClient.of(new MemcachedLockStore(memcached), options)) { … }
 * }</pre>
 *
 * <p>Each lock is one item, {@code <prefix>lock:<name>}, holding owner, nested holds and fencing
 * token. Acquire is {@code add} (only one caller can create the item); re-entry and extend are
 * {@code gets} then {@code cas} with the owner checked in between; release is {@code gets}, owner
 * check, then {@code delete} with the CAS id just read, so a release that comes after the lease ran
 * out can never delete the next holder's item. Expiry is memcached's own, in whole seconds: a lease
 * is stored as {@code ceil(lease) + 1} seconds because memcached may drop an item up to a second
 * early, so the item lives at least as long as asked.
 *
 * <p>Fencing tokens (when enabled) come from {@code incr} on a per-name counter item, drawn after
 * the {@code add} succeeded, so only holders draw and in the order they held. A missing counter
 * (new name, memcached restarted, counter evicted or flushed) is created at the current wall-clock
 * time in microseconds; tokens therefore keep rising across counter loss as long as the clocks of
 * the clients that create counters do not run behind each other by more than the counter lived.
 * That clock condition is the whole promise: see the module README.
 *
 * <p>Failures (server unreachable, paused past the operation timeout, out of memory, a key holding
 * something that is not a lock record) throw {@link LockStoreException} with spymemcached's
 * exception as cause. Read-write locks are not offered: one memcached item has one expiry, and
 * per-reader expiry would need a clock the store does not have.
 */
public final class MemcachedLockStore implements LockStore {

  /** The key prefix used when none is given. */
  public static final String DEFAULT_KEY_PREFIX = "locksmith:";

  /** Memcached expiry is in whole seconds, so a lease shorter than a second cannot be held. */
  public static final StoreTiming TIMING =
      new StoreTiming(Duration.ofSeconds(1), Duration.ofSeconds(1));

  private static final Logger log = LoggerFactory.getLogger(MemcachedLockStore.class);

  /** Bound on optimistic retries of one operation; each retry means someone else wrote first. */
  private static final int MAX_ATTEMPTS = 200;

  private final MemcachedClient client;
  private final StoreKeys keys;
  private final boolean fencing;
  private final boolean ownsClient;
  private final String description;
  private final long timeoutMillis;
  private final Set<Capability> capabilities;
  private final Clock wallClock = Clock.systemUTC();

  /**
   * A store on {@code client} with the default key prefix and fencing tokens on. The caller keeps
   * ownership of {@code client}: closing the store does not shut it down.
   *
   * @throws IllegalArgumentException if {@code client} does not use the binary protocol (release
   *     needs delete-with-CAS, which the text protocol lacks)
   */
  public MemcachedLockStore(MemcachedClient client) {
    this(client, DEFAULT_KEY_PREFIX, true);
  }

  /**
   * A store on {@code client}. The caller keeps ownership of {@code client}: closing the store does
   * not shut it down.
   *
   * @param keyPrefix put before every key ({@code <prefix>lock:<name>}); printable ASCII without
   *     spaces, at most 64 characters, may be empty
   * @param fencing whether to hand out fencing tokens (and declare {@link Capability#FENCING} and
   *     {@link Capability#DURABLE_FENCING}); turn it off when the clocks of the clients are not
   *     kept in step (see the README)
   * @throws IllegalArgumentException if the prefix is unusable or {@code client} does not use the
   *     binary protocol
   */
  public MemcachedLockStore(MemcachedClient client, String keyPrefix, boolean fencing) {
    this(client, keyPrefix, fencing, false, "memcached");
  }

  MemcachedLockStore(
      MemcachedClient client,
      String keyPrefix,
      boolean fencing,
      boolean ownsClient,
      String description) {
    this.client = Objects.requireNonNull(client, "client must not be null");
    this.keys = new StoreKeys(Objects.requireNonNull(keyPrefix, "keyPrefix must not be null"));
    for (MemcachedNode node : client.getConnection().getLocator().getAll()) {
      if (!(node instanceof BinaryMemcachedNodeImpl)) {
        throw new IllegalArgumentException(
            "the MemcachedClient must use the binary protocol"
                + " (ConnectionFactoryBuilder.setProtocol(Protocol.BINARY)): releasing a lock needs"
                + " delete-with-CAS, which the text protocol does not have");
      }
    }
    this.fencing = fencing;
    this.ownsClient = ownsClient;
    this.description = description;
    this.timeoutMillis = Math.max(1, client.getOperationTimeout());
    this.capabilities =
        fencing
            ? Set.copyOf(
                EnumSet.of(Capability.REENTRANCY, Capability.FENCING, Capability.DURABLE_FENCING))
            : Set.of(Capability.REENTRANCY);
  }

  /** The spymemcached client this store talks through. */
  public MemcachedClient client() {
    return client;
  }

  /** The memcached key of the lock item for {@code name} (for tests and operators). */
  public String lockKey(String name) {
    return keys.lock(name);
  }

  /** The memcached key of the fencing counter for {@code name} (for tests and operators). */
  public String fenceKey(String name) {
    return keys.fence(name);
  }

  /**
   * The memcached expiry, in seconds, that a lease of {@code leaseTime} is stored with: the lease
   * rounded up to whole seconds, plus one, because memcached's clock ticks in whole seconds and may
   * drop an item up to a second before its nominal expiry.
   */
  public static int expirySeconds(Duration leaseTime) {
    long nanos = leaseTime.toNanos();
    long seconds = (nanos + 999_999_999L) / 1_000_000_000L;
    // Leases are capped at 7 days by the engine, well below memcached's 30-day relative limit.
    return Math.toIntExact(seconds + 1);
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public StoreTiming timing() {
    return TIMING;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    requireExclusive(key);
    requireLease(leaseTime);
    String itemKey = keys.lock(key.name());
    int expiry = expirySeconds(leaseTime);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      LockRecord fresh = new LockRecord(fencing ? LockRecord.PENDING : 0, 1, expiry, owner);
      OperationFuture<Boolean> add =
          send("add", key, () -> client.add(itemKey, expiry, fresh.encode(), TEXT));
      StatusCode added = await(add, "add", key).getStatusCode();
      if (added == StatusCode.SUCCESS) {
        if (!fencing) {
          return Acquisition.acquired(0, 1);
        }
        Acquisition a = recordToken(key, itemKey, fresh, add);
        if (a != null) {
          return a;
        }
        continue;
      }
      if (added != StatusCode.ERR_EXISTS && added != StatusCode.ERR_NOT_STORED) {
        throw failed("add", key, add);
      }
      CASValue<String> current = gets(itemKey, key);
      if (current == null) {
        continue; // It expired or was released between our add and our gets.
      }
      LockRecord held = decode(current, key);
      if (!held.owner().equals(owner)) {
        return Acquisition.busy();
      }
      if (held.pending()) {
        // The same owner's first acquire, on another thread, is still drawing its token.
        LockSupport.parkNanos(1_000_000L);
        continue;
      }
      LockRecord nested = held.with(held.holds() + 1, expiry);
      StatusCode r = cas(itemKey, current.getCas(), expiry, nested, key);
      if (r == StatusCode.SUCCESS) {
        return Acquisition.acquired(held.token(), nested.holds());
      }
      // ERR_EXISTS: changed under us; ERR_NOT_FOUND: gone. Either way, look again.
    }
    throw new LockStoreException(
        "acquire of lock '"
            + key.name()
            + "' on "
            + description
            + " did not settle after "
            + MAX_ATTEMPTS
            + " attempts: its item kept changing under concurrent writes");
  }

  /**
   * Draws a token for the hold that {@code add} just created and writes it into the item. Returns
   * null if the item was lost before the token could be recorded (it expired, was flushed or
   * evicted, and maybe taken by someone else): the caller then starts over.
   */
  private @Nullable Acquisition recordToken(
      LockKey key, String itemKey, LockRecord fresh, OperationFuture<Boolean> add) {
    Long addCas;
    try {
      addCas = add.getCas();
    } catch (RuntimeException e) {
      addCas = null; // Not every server reports the CAS id of an add; read it instead.
    }
    long token;
    try {
      token = nextToken(key);
    } catch (RuntimeException e) {
      // Do not leave a hold without a token behind: its owner could not re-enter it until expiry.
      if (addCas != null && addCas != 0) {
        try {
          client.delete(itemKey, addCas);
        } catch (RuntimeException ignored) {
          // Best effort: the item expires with its lease.
        }
      }
      throw e;
    }
    long cas;
    if (addCas != null && addCas != 0) {
      cas = addCas;
    } else {
      CASValue<String> now = gets(itemKey, key);
      if (now == null || !decode(now, key).equals(fresh)) {
        return null;
      }
      cas = now.getCas();
    }
    StatusCode r = cas(itemKey, cas, fresh.leaseSeconds(), fresh.withToken(token), key);
    if (r == StatusCode.SUCCESS) {
      return Acquisition.acquired(token, 1);
    }
    // Nobody else may write an item we hold, and our own owner waits while the token is pending,
    // so a failed CAS means the item was lost (expired, flushed, evicted), not that we still hold.
    log.debug("Lock '{}' was lost before its fencing token was recorded; retrying", key);
    return null;
  }

  /**
   * The next fencing token of {@code key}: {@code incr} of its counter, created at the wall clock
   * in microseconds when missing, so a lost counter restarts above every token drawn before (given
   * the clock condition in the class comment).
   */
  private long nextToken(LockKey key) {
    String counter = keys.fence(key.name());
    Instant now = wallClock.instant();
    long floor =
        Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1000);
    OperationFuture<Long> f = send("incr", key, () -> client.asyncIncr(counter, 1L, floor, 0));
    OperationStatus status = await(f, "incr", key);
    Long value = getDone(f);
    if (!status.isSuccess() || value == null || value < 0) {
      throw failed("incr of the fencing counter", key, f);
    }
    return value;
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    requireExclusive(key);
    requireLease(leaseTime);
    String itemKey = keys.lock(key.name());
    int expiry = expirySeconds(leaseTime);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      CASValue<String> current = gets(itemKey, key);
      if (current == null) {
        return false;
      }
      LockRecord held = decode(current, key);
      if (!held.owner().equals(owner)) {
        return false;
      }
      StatusCode r = cas(itemKey, current.getCas(), expiry, held.with(held.holds(), expiry), key);
      if (r == StatusCode.SUCCESS) {
        return true;
      }
      if (r == StatusCode.ERR_NOT_FOUND) {
        return false;
      }
    }
    throw notSettled("extend", key);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    requireExclusive(key);
    String itemKey = keys.lock(key.name());
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      CASValue<String> current = gets(itemKey, key);
      if (current == null) {
        return ReleaseOutcome.NOT_HELD;
      }
      LockRecord held = decode(current, key);
      if (!held.owner().equals(owner)) {
        return ReleaseOutcome.NOT_HELD;
      }
      if (held.holds() > 1) {
        // A CAS must set an expiry and memcached does not tell the remaining one: give the
        // lease again in full. The item lives longer than the engine counts, never shorter.
        LockRecord less = held.with(held.holds() - 1, held.leaseSeconds());
        StatusCode r = cas(itemKey, current.getCas(), held.leaseSeconds(), less, key);
        if (r == StatusCode.SUCCESS) {
          return ReleaseOutcome.HOLD_DECREMENTED;
        }
        if (r == StatusCode.ERR_NOT_FOUND) {
          return ReleaseOutcome.NOT_HELD;
        }
        continue;
      }
      // Delete only the very item version we just checked: if our lease ran out and someone
      // else took the lock since, its CAS id differs and nothing is deleted.
      long casId = current.getCas();
      OperationFuture<Boolean> del = send("delete", key, () -> client.delete(itemKey, casId));
      StatusCode r = await(del, "delete", key).getStatusCode();
      if (r == StatusCode.SUCCESS) {
        return ReleaseOutcome.RELEASED;
      }
      if (r == StatusCode.ERR_NOT_FOUND) {
        return ReleaseOutcome.NOT_HELD;
      }
      if (r != StatusCode.ERR_EXISTS) {
        throw failed("delete", key, del);
      }
    }
    throw notSettled("release", key);
  }

  @Override
  public LockState read(LockKey key) {
    requireExclusive(key);
    CASValue<String> current = gets(keys.lock(key.name()), key);
    if (current == null) {
      return LockState.FREE;
    }
    LockRecord held = decode(current, key);
    // Memcached does not report an item's remaining time, so remaining is unknown.
    return new LockState(true, held.owner(), held.holds(), null);
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.shutdown(timeoutMillis, TimeUnit.MILLISECONDS);
    }
  }

  // Calls to memcached, with every failure turned into LockStoreException.

  private static final TextTranscoder TEXT = TextTranscoder.INSTANCE;

  private @Nullable CASValue<String> gets(String itemKey, LockKey key) {
    OperationFuture<CASValue<String>> f = send("gets", key, () -> client.asyncGets(itemKey, TEXT));
    StatusCode code = await(f, "gets", key).getStatusCode();
    if (code == StatusCode.ERR_NOT_FOUND) {
      return null;
    }
    if (code != StatusCode.SUCCESS) {
      throw failed("gets", key, f);
    }
    return getDone(f);
  }

  private StatusCode cas(String itemKey, long casId, int expiry, LockRecord value, LockKey key) {
    OperationFuture<?> f =
        send("cas", key, () -> client.asyncCAS(itemKey, casId, expiry, value.encode(), TEXT));
    StatusCode code = await(f, "cas", key).getStatusCode();
    if (code != StatusCode.SUCCESS
        && code != StatusCode.ERR_EXISTS
        && code != StatusCode.ERR_NOT_FOUND) {
      throw failed("cas", key, f);
    }
    return code;
  }

  /** Sends an operation; spymemcached refuses some synchronously (shut down, queue full). */
  private <T> OperationFuture<T> send(String op, LockKey key, Supplier<OperationFuture<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      throw failure(op, key, e);
    }
  }

  /** Waits for {@code f} within the operation timeout and returns its status. */
  private OperationStatus await(OperationFuture<?> f, String op, LockKey key) {
    try {
      f.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      f.cancel();
      Thread.currentThread().interrupt();
      throw new LockStoreException(
          op + " of lock '" + key.name() + "' on " + description + " was interrupted", e);
    } catch (TimeoutException e) {
      f.cancel();
      throw new LockStoreException(
          op
              + " of lock '"
              + key.name()
              + "' on "
              + description
              + " timed out after "
              + timeoutMillis
              + " ms",
          e);
    } catch (ExecutionException e) {
      throw failure(op, key, e.getCause() != null ? e.getCause() : e);
    } catch (RuntimeException e) {
      throw failure(op, key, e);
    }
    OperationStatus status = f.getStatus();
    if (status == null) {
      throw new LockStoreException(
          op + " of lock '" + key.name() + "' on " + description + " returned no status");
    }
    return status;
  }

  private static <T> @Nullable T getDone(OperationFuture<T> f) {
    try {
      return f.get(0, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockStoreException("interrupted reading a completed memcached result", e);
    } catch (TimeoutException | ExecutionException e) {
      throw new LockStoreException("a completed memcached operation failed: " + e, e);
    }
  }

  private LockRecord decode(CASValue<String> value, LockKey key) {
    try {
      return LockRecord.decode(value.getValue());
    } catch (IllegalArgumentException e) {
      throw new LockStoreException(
          "the memcached item of lock '"
              + key.name()
              + "' ("
              + keys.lock(key.name())
              + ") on "
              + description
              + " holds something else: "
              + e.getMessage()
              + "; another program writes to this key, use another keyPrefix",
          e);
    }
  }

  private LockStoreException failure(String op, LockKey key, Throwable cause) {
    return new LockStoreException(
        op + " of lock '" + key.name() + "' on " + description + " failed: " + cause, cause);
  }

  private LockStoreException failed(String op, LockKey key, OperationFuture<?> f) {
    OperationStatus s = f.getStatus();
    String why = s == null ? "no status" : s.getStatusCode() + " " + s.getMessage();
    return new LockStoreException(
        op + " of lock '" + key.name() + "' on " + description + " failed: " + why);
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
            + " attempts: its item kept changing under concurrent writes");
  }

  private void requireExclusive(LockKey key) {
    Objects.requireNonNull(key, "key must not be null");
    if (key.mode() != LockMode.EXCLUSIVE) {
      throw new UnsupportedCapabilityException(
          Capability.READ_WRITE,
          description,
          "one memcached item has one expiry, so readers cannot each have their own lease");
    }
  }

  private static void requireLease(Duration leaseTime) {
    Objects.requireNonNull(leaseTime, "leaseTime must not be null");
    if (leaseTime.compareTo(TIMING.minimumLease()) < 0) {
      throw new IllegalArgumentException(
          "leaseTime must be at least 1 s on memcached (its expiry is in whole seconds), was "
              + leaseTime.toMillis()
              + " ms");
    }
  }
}
