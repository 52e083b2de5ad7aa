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
import net.spy.memcached.NodeLocator;
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
 * <p>Fencing tokens (when enabled) come from {@code incr} on a per-name counter item, executed by
 * memcached after the {@code add} (pipelined behind it on the same connection, or sent after it
 * completed), so every holder's token is drawn after the previous holder's was. A missing counter
 * (new name, memcached restarted, counter evicted or flushed) is created at the current wall-clock
 * time in nanoseconds; tokens therefore keep rising across counter loss as long as the clocks of
 * the clients that create counters do not run behind each other by more than the counter lived.
 * That clock condition is the whole promise: see the module README.
 *
 * <p>Round trips: acquire is {@code add}+{@code incr} (pipelined) then the {@code cas} that writes
 * the token, or one {@code add} without fencing; release is {@code gets} then {@code delete} with
 * the CAS id read; extend is {@code gets} then {@code cas}.
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
   * Whether {@code add} and {@code incr} may be pipelined when both keys map to the same server.
   * True for the provider's own client ({@code FailureMode.Cancel}: an operation goes to its key's
   * server or fails) and for a client of one server; a caller's client of several servers might
   * redistribute the two operations to different servers, which would lose their order.
   */
  private final boolean pipelineIncr;

  /** Whether the client has exactly one server, so every key goes to it. */
  private final boolean singleServer;

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
    this.singleServer = client.getConnection().getLocator().getAll().size() == 1;
    this.pipelineIncr = ownsClient || singleServer;
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
  public String keyPrefix() {
    return keys.prefix();
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Set<Capability> promises() {
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
    String counterKey = keys.fence(key.name());
    int expiry = expirySeconds(leaseTime);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      LockRecord fresh = new LockRecord(fencing ? LockRecord.PENDING : 0, 1, expiry, owner);
      OperationFuture<Boolean> add =
          send("add", key, () -> client.add(itemKey, expiry, fresh.encode(), TEXT));
      // Round trip 1: the add, with the counter's incr pipelined right behind it when both keys
      // live on the same server. memcached executes one connection's requests in order, and
      // spymemcached keeps one connection per server and sends a server's operations in the order
      // they were queued (also when it resends them after a reconnect), so this incr is executed
      // after our add. A next holder's add can only succeed after our hold ended, which is after
      // our incr answered, so its incr executes after ours: tokens rise across successive holders.
      // An add that finds the lock taken burns the token it drew; gaps are allowed.
      OperationFuture<Long> incr =
          fencing && pipelineIncr && sameServer(itemKey, counterKey)
              ? sendIncr(counterKey, key)
              : null;
      StatusCode added = await(add, "add", key).getStatusCode();
      if (added == StatusCode.SUCCESS) {
        if (!fencing) {
          return Acquisition.acquired(0, 1);
        }
        Acquisition a = recordToken(key, itemKey, fresh, add, incr);
        if (a != null) {
          return a;
        }
        continue;
      }
      if (added != StatusCode.ERR_EXISTS && added != StatusCode.ERR_NOT_STORED) {
        throw failed("add", key, add);
      }
      // Round trip 2 (re-entry or busy): read the item to see whose it is. An unanswered pipelined
      // incr needs no waiting: the token it drew is simply not used.
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
      // Round trip 3 (re-entry only): the nested hold, CAS-checked against the version just read.
      LockRecord nested = held.with(held.holds() + 1, expiry);
      OperationFuture<?> r = cas(itemKey, current.getCas(), expiry, nested, key);
      StatusCode code = r.getStatus().getStatusCode();
      if (code == StatusCode.SUCCESS) {
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
   *
   * @param incr the {@code incr} pipelined behind the {@code add}, or null to send it now (keys on
   *     different servers: only an incr sent after the add completed is known to execute after it)
   */
  private @Nullable Acquisition recordToken(
      LockKey key,
      String itemKey,
      LockRecord fresh,
      OperationFuture<Boolean> add,
      @Nullable OperationFuture<Long> incr) {
    long addCas = casOf(add);
    long token;
    try {
      token = tokenOf(incr != null ? incr : sendIncr(keys.fence(key.name()), key), key);
    } catch (RuntimeException e) {
      // Do not leave a hold without a token behind: its owner could not re-enter it until expiry.
      if (addCas != 0) {
        try {
          client.delete(itemKey, addCas);
        } catch (RuntimeException ignored) {
          // Best effort: the item expires with its lease.
        }
      }
      throw e;
    }
    long cas;
    if (addCas != 0) {
      cas = addCas;
    } else {
      // Not every server reports the CAS id of an add: read it (one more round trip).
      CASValue<String> now = gets(itemKey, key);
      if (now == null || !decode(now, key).equals(fresh)) {
        return null;
      }
      cas = now.getCas();
    }
    // Round trip 2: write the token into the item, so that re-entry returns it. The CAS id of our
    // own add also proves the item is still the one we created, so the hold is ours.
    LockRecord tokened = fresh.withToken(token);
    OperationFuture<?> r = cas(itemKey, cas, fresh.leaseSeconds(), tokened, key);
    if (r.getStatus().getStatusCode() == StatusCode.SUCCESS) {
      return Acquisition.acquired(token, 1);
    }
    // Nobody else may write an item we hold, and our own owner waits while the token is pending,
    // so a failed CAS means the item was lost (expired, flushed, evicted), not that we still hold.
    log.debug("Lock '{}' was lost before its fencing token was recorded; retrying", key);
    return null;
  }

  /**
   * Sends the {@code incr} of a fencing counter; a missing counter is created at the wall clock in
   * nanoseconds, so a lost counter restarts above every token drawn before (given the clock
   * condition in the class comment; nanoseconds leave room for a thousand draws, busy attempts
   * included, per microsecond the counter lived).
   */
  private OperationFuture<Long> sendIncr(String counterKey, LockKey key) {
    Instant now = wallClock.instant();
    long floor =
        Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
    return send("incr", key, () -> client.asyncIncr(counterKey, 1L, floor, 0));
  }

  /** The token an {@code incr} drew. */
  private long tokenOf(OperationFuture<Long> f, LockKey key) {
    OperationStatus status = await(f, "incr", key);
    Long value = getDone(f);
    if (!status.isSuccess() || value == null || value < 0) {
      throw failed("incr of the fencing counter", key, f);
    }
    return value;
  }

  /**
   * Whether both keys go to the same server. With one server they always do; otherwise ask the live
   * locator (not {@code MemcachedClient.getNodeLocator()}, which copies the whole ring).
   */
  private boolean sameServer(String itemKey, String counterKey) {
    if (singleServer) {
      return true;
    }
    NodeLocator locator = client.getConnection().getLocator();
    return locator.getPrimary(itemKey) == locator.getPrimary(counterKey);
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    requireExclusive(key);
    requireLease(leaseTime);
    String itemKey = keys.lock(key.name());
    int expiry = expirySeconds(leaseTime);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Round trip 1: read the item in this very run of the server, to check the owner and get a
      // CAS id that only that version carries. (A CAS id remembered from an earlier write would
      // save this read, but memcached counts CAS ids from 1 again after a restart, and
      // spymemcached notices a dropped idle connection only when it next writes and then resends
      // the operations queued behind: a remembered id could reach the restarted server and match
      // another owner's item.)
      CASValue<String> current = gets(itemKey, key);
      if (current == null) {
        return false;
      }
      LockRecord held = decode(current, key);
      if (!held.owner().equals(owner)) {
        return false;
      }
      // Round trip 2: the new expiry, only onto the version just checked.
      OperationFuture<?> r =
          cas(itemKey, current.getCas(), expiry, held.with(held.holds(), expiry), key);
      StatusCode code = r.getStatus().getStatusCode();
      if (code == StatusCode.SUCCESS) {
        return true;
      }
      if (code == StatusCode.ERR_NOT_FOUND) {
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
      // Round trip 1: read the item to check the owner and take the CAS id of the version checked
      // (see extend for why a remembered CAS id is not used instead).
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
        OperationFuture<?> r = cas(itemKey, current.getCas(), held.leaseSeconds(), less, key);
        StatusCode code = r.getStatus().getStatusCode();
        if (code == StatusCode.SUCCESS) {
          return ReleaseOutcome.HOLD_DECREMENTED;
        }
        if (code == StatusCode.ERR_NOT_FOUND) {
          return ReleaseOutcome.NOT_HELD;
        }
        continue;
      }
      // Round trip 2: delete only the very item version we just checked: if our lease ran out and
      // someone else took the lock since, its CAS id differs and nothing is deleted.
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
    CASValue<String> value = getDone(f);
    if (value != null && value.getCas() == 0) {
      // A server started with -C keeps no CAS ids, and a delete or cas with id 0 is unconditional:
      // owner-checked release and extend would silently become plain ones.
      throw new LockStoreException(
          "memcached at "
              + description
              + " returned no CAS id for lock '"
              + key.name()
              + "': it runs with CAS disabled (-C), which an owner-checked lock cannot work with");
    }
    return value;
  }

  /** A CAS write; returns the completed future, whose status is SUCCESS, EXISTS or NOT_FOUND. */
  private OperationFuture<?> cas(
      String itemKey, long casId, int expiry, LockRecord value, LockKey key) {
    OperationFuture<?> f =
        send("cas", key, () -> client.asyncCAS(itemKey, casId, expiry, value.encode(), TEXT));
    StatusCode code = await(f, "cas", key).getStatusCode();
    if (code != StatusCode.SUCCESS
        && code != StatusCode.ERR_EXISTS
        && code != StatusCode.ERR_NOT_FOUND) {
      throw failed("cas", key, f);
    }
    return f;
  }

  /** The CAS id a completed write reported, or 0 when the server reported none. */
  private static long casOf(OperationFuture<?> f) {
    try {
      Long cas = f.getCas();
      return cas == null ? 0 : cas;
    } catch (RuntimeException e) {
      return 0; // spymemcached throws when a write's response carried no CAS id.
    }
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
