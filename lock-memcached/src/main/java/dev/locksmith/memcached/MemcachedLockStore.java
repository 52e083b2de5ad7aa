package dev.locksmith.memcached;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.memcached.internal.FencingCounter;
import dev.locksmith.memcached.internal.FencingCounter.Draw;
import dev.locksmith.memcached.internal.ItemClient;
import dev.locksmith.memcached.internal.ItemClient.PendingAdd;
import dev.locksmith.memcached.internal.ItemClient.PendingCas;
import dev.locksmith.memcached.internal.ItemClient.PendingGets;
import dev.locksmith.memcached.internal.LockRecord;
import dev.locksmith.memcached.internal.StoreKeys;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import net.spy.memcached.CASValue;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.ops.StatusCode;
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
 * of whole seconds (the engine rounds up to {@link #timing()}) is stored as {@code lease + 2}
 * seconds, because memcached stamps an item with a clock that can be nearly two seconds behind
 * (below), so the item lives at least as long as asked and usually frees one to two seconds after
 * the rounded-up lease.
 *
 * <p>Fencing tokens (when enabled) come from {@code incr} on a counter item shared by every name on
 * the lock item's server ({@link FencingCounter}), executed by memcached after the {@code add}, so
 * every holder's token is drawn after the previous holder's. A released lock leaves no item behind:
 * the store keeps one counter per server and key prefix, whatever the number of names. A missing
 * counter is created at the wall clock in nanoseconds: tokens keep rising across counter loss
 * (eviction, flush, restart) as long as the clients' clocks do not run behind each other by more
 * than the counter lived. That clock condition is the whole promise: see the module README. Two
 * clients that both find the counter missing race to create it; the one memcached answers {@code
 * NOT_STORED} draws again, so a won acquire never fails for it.
 *
 * <p>Key prefixes must not contain {@code lock:} or {@code fence:}, the separators of the key
 * layout: with them, two prefixes could map different names onto one key ({@code StoreKeys}).
 *
 * <p>Fencing is chosen with {@link Fencing}: {@code new MemcachedLockStore(client, "app1:",
 * Fencing.OFF)}. (Earlier snapshots took a {@code boolean fencing} here; {@code true} is {@link
 * Fencing#ON}, {@code false} is {@link Fencing#OFF}.)
 *
 * <p>Failures (server unreachable, paused past the operation timeout, out of memory) throw
 * spymemcached's exceptions, which the engine reports as {@code LockStoreException} naming the kind
 * of failure ({@link #classify}). A key holding something that is not a lock record, and a server
 * without CAS ids ({@code -C}), fail with a {@code LockStoreException} of their own. Read-write
 * locks are not offered: one memcached item has one expiry, and per-reader expiry would need a
 * clock the store does not have.
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

  /** Whether a store hands out fencing tokens. */
  public enum Fencing {
    /**
     * Tokens from a counter per server; a lost counter is created again at the wall clock, so
     * tokens keep rising as long as the clients' clocks are kept in step (see the README). The
     * store declares {@link Capability#FENCING} and {@link Capability#DURABLE_FENCING}.
     */
    ON,
    /** No tokens and no counter items, for clients whose clocks are not kept in step. */
    OFF
  }

  /** Who shuts the spymemcached client down. */
  private enum ClientOwner {
    /** The caller, who built the client (in any failure mode) and keeps it after the store. */
    CALLER,
    /** The store: the provider built it in {@code FailureMode.Cancel}; close() shuts it down. */
    STORE
  }

  private final MemcachedClient client;
  private final ItemClient items;
  private final StoreKeys keys;
  private final @Nullable FencingCounter counter;
  private final ClientOwner owner;
  private final String description;

  /**
   * A store on {@code client} with the default key prefix and fencing tokens on. The caller keeps
   * ownership of {@code client}: closing the store does not shut it down.
   *
   * @throws IllegalArgumentException if {@code client} does not use the binary protocol (release
   *     needs delete-with-CAS, which the text protocol lacks)
   */
  public MemcachedLockStore(MemcachedClient client) {
    this(client, DEFAULT_KEY_PREFIX, Fencing.ON);
  }

  /**
   * A store on {@code client}. The caller keeps ownership of {@code client}: closing the store does
   * not shut it down.
   *
   * @param keyPrefix put before every key ({@code <prefix>lock:<name>}); printable ASCII without
   *     spaces and without {@code lock:} or {@code fence:}, at most 64 characters, may be empty
   * @param fencing whether to hand out fencing tokens (and declare {@link Capability#FENCING} and
   *     {@link Capability#DURABLE_FENCING}); turn it {@link Fencing#OFF} when the clocks of the
   *     clients are not kept in step (see the README)
   * @throws IllegalArgumentException if the prefix is unusable or {@code client} does not use the
   *     binary protocol
   * @throws NullPointerException if an argument is null
   */
  public MemcachedLockStore(MemcachedClient client, String keyPrefix, Fencing fencing) {
    this(client, keyPrefix, fencing, ClientOwner.CALLER, "memcached");
  }

  /**
   * A store on a client that the provider built in {@code FailureMode.Cancel} for this store alone:
   * closing the store shuts the client down.
   */
  static MemcachedLockStore onOwnClient(
      MemcachedClient client, String keyPrefix, Fencing fencing, String description) {
    return new MemcachedLockStore(client, keyPrefix, fencing, ClientOwner.STORE, description);
  }

  private MemcachedLockStore(
      MemcachedClient client,
      String keyPrefix,
      Fencing fencing,
      ClientOwner owner,
      String description) {
    this.client = Objects.requireNonNull(client, "client must not be null");
    Objects.requireNonNull(fencing, "fencing must not be null");
    this.keys = new StoreKeys(keyPrefix);
    this.items = new ItemClient(client, description);
    // The provider builds its client in FailureMode.Cancel; a caller's client may be in any mode.
    this.counter =
        fencing == Fencing.OFF
            ? null
            : owner == ClientOwner.STORE
                ? FencingCounter.onCancelModeClient(items, keys)
                : FencingCounter.onAnyClient(items, keys);
    this.owner = owner;
    this.description = description;
  }

  /** The spymemcached client this store talks through. */
  public MemcachedClient client() {
    return client;
  }

  /** The memcached key of the lock item for {@code name} (for tests and operators). */
  public String lockKey(String name) {
    return keys.lock(name);
  }

  /**
   * The memcached key of the fencing counter that {@code name} draws its tokens from, shared with
   * every other name on its server (for tests and operators).
   *
   * @throws IllegalStateException if the store hands out no fencing tokens
   */
  public String fenceKey(String name) {
    if (counter == null) {
      throw new IllegalStateException("this store hands out no fencing tokens (Fencing.OFF)");
    }
    return counter.counterKey(name);
  }

  /**
   * The memcached expiry, in seconds, that a lease of {@code leaseTime} (whole seconds, as the
   * engine passes it) is stored with: two more. Memcached's clock is the whole seconds of its
   * monotonic clock, read by a timer that re-arms a second after it runs; an item expires when that
   * clock reaches the clock it was stored at plus its expiry. Just before a tick the reading is up
   * to a second old and its fraction is lost, so it can lag the true time by nearly two seconds,
   * and the next tick catches up at once: the timer drifts later every tick, and some tick steps
   * the clock by two (more when the server was paused). With one second added, an item stored
   * before such a tick lived as little as a few milliseconds of a 1 s lease ({@code
   * MemcachedFaultTest.lateClockTickKeepsLease}). Leases are capped at 7 days by the engine, well
   * below memcached's 30-day relative limit.
   */
  static int expirySeconds(Duration leaseTime) {
    return Math.toIntExact(leaseTime.toSeconds() + 2);
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
    return counter != null
        ? Set.of(Capability.REENTRANCY, Capability.FENCING, Capability.DURABLE_FENCING)
        : Set.of(Capability.REENTRANCY);
  }

  @Override
  public StoreTiming timing() {
    return TIMING;
  }

  @Override
  public StoreFailure classify(Exception failure) {
    return ItemClient.classify(failure);
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    requireExclusive(key);
    String itemKey = keys.lock(key.name());
    int expiry = expirySeconds(leaseTime);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      LockRecord fresh = new LockRecord(counter != null ? LockRecord.PENDING : 0, 1, expiry, owner);
      PendingAdd add = items.add(itemKey, expiry, fresh.encode());
      // Round trip 1: the add, with the counter's incr pipelined right behind it on the same
      // connection (the counter lives on the lock item's server), so memcached executes our incr
      // after our add. A next holder's add can only succeed after our hold ended, which is after
      // our incr answered, so its incr executes after ours: tokens rise across successive holders.
      // An add that finds the lock taken burns the token it drew; gaps are allowed.
      Draw draw = counter != null ? counter.drawBehindAdd(key.name()) : null;
      Acquisition a =
          add.created() ? recordToken(key, fresh, add, draw) : reenterOrBusy(key, owner, expiry);
      if (a != null) {
        return a;
      }
    }
    throw notSettled("acquire", key);
  }

  /**
   * Gives {@code owner} a nested hold if it holds {@code key} ({@link Acquisition#busy()} if
   * someone else does), or null to try again: the item was gone, changed under us, or still waits
   * for the owner's first token.
   */
  private @Nullable Acquisition reenterOrBusy(LockKey key, String owner, int expiry)
      throws Exception {
    // Round trip 2: read the item to see whose it is. An unanswered pipelined incr needs no
    // waiting: the token it drew is simply not used.
    CASValue<LockRecord> current = readItem(key);
    if (current == null) {
      return null; // It expired or was released between our add and our gets.
    }
    LockRecord held = current.getValue();
    if (!held.owner().equals(owner)) {
      return Acquisition.busy();
    }
    if (held.pending()) {
      // The same owner's first acquire, on another thread, is still drawing its token.
      LockSupport.parkNanos(1_000_000L);
      return null;
    }
    // Round trip 3: the nested hold, CAS-checked against the version just read.
    LockRecord nested = held.with(held.holds() + 1, expiry);
    StatusCode code = items.cas(keys.lock(key.name()), current.getCas(), expiry, nested.encode());
    return code == StatusCode.SUCCESS ? Acquisition.acquired(held.token(), nested.holds()) : null;
  }

  /**
   * Draws a token for the hold that {@code add} just created and writes it into the item. Returns
   * null if the item was lost before the token could be recorded (it expired, was flushed or
   * evicted, and maybe taken by someone else): the caller then starts over.
   *
   * @param draw the draw begun behind the {@code add}, or null without fencing
   */
  private @Nullable Acquisition recordToken(
      LockKey key, LockRecord fresh, PendingAdd add, @Nullable Draw draw) throws Exception {
    if (draw == null) {
      return Acquisition.acquired(0, 1);
    }
    String itemKey = keys.lock(key.name());
    long token;
    try {
      token = draw.token();
    } catch (Exception e) {
      // Do not leave a hold without a token behind: its owner could not re-enter it until expiry.
      items.deleteSoon(itemKey, add.casId());
      throw e;
    }
    long cas = add.casId();
    if (cas == 0) {
      // Not every server reports the CAS id of an add: read it (one more round trip).
      CASValue<LockRecord> now = readItem(key);
      if (now == null || !now.getValue().equals(fresh)) {
        return null;
      }
      cas = now.getCas();
    }
    // Round trip 2: write the token into the item, so that re-entry returns it. The CAS id of our
    // own add also proves the item is still the one we created, so the hold is ours.
    String tokened = fresh.withToken(token).encode();
    if (items.cas(itemKey, cas, fresh.leaseSeconds(), tokened) == StatusCode.SUCCESS) {
      return Acquisition.acquired(token, 1);
    }
    // Nobody else may write an item we hold, and our own owner waits while the token is pending,
    // so a failed CAS means the item was lost (expired, flushed, evicted), not that we still hold.
    log.debug("Lock '{}' was lost before its fencing token was recorded; retrying", key);
    return null;
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    requireExclusive(key);
    int expiry = expirySeconds(leaseTime);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Round trip 1: read the item in this very run of the server, to check the owner and get a
      // CAS id that only that version carries. (A CAS id remembered from an earlier write would
      // save this read, but memcached counts CAS ids from 1 again after a restart, and
      // spymemcached notices a dropped idle connection only when it next writes and then resends
      // the operations queued behind: a remembered id could reach the restarted server and match
      // another owner's item.)
      CASValue<LockRecord> current = readItem(key);
      if (current == null || !current.getValue().owner().equals(owner)) {
        return false;
      }
      // Round trip 2: the new expiry, only onto the version just checked.
      LockRecord extended = current.getValue().with(current.getValue().holds(), expiry);
      StatusCode code =
          items.cas(keys.lock(key.name()), current.getCas(), expiry, extended.encode());
      if (code != StatusCode.ERR_EXISTS) {
        return code == StatusCode.SUCCESS;
      }
    }
    throw notSettled("extend", key);
  }

  /**
   * The batch in two pipelined rounds instead of two round trips per hold: every {@code gets} is
   * sent before the first answer is read, then every {@code cas} onto the version just checked. An
   * extension whose item changed between the two ({@code ERR_EXISTS}) is settled on its own, as
   * {@link #extend} settles it.
   */
  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) throws Exception {
    List<PendingGets> reads = new ArrayList<>(extensions.size());
    for (LeaseExtension e : extensions) {
      requireExclusive(e.key());
      reads.add(items.sendGets(keys.lock(e.key().name())));
    }
    PendingCas[] writes = new PendingCas[extensions.size()];
    for (int i = 0; i < writes.length; i++) {
      LeaseExtension e = extensions.get(i);
      CASValue<LockRecord> current = record(e.key(), reads.get(i).item());
      if (current != null && current.getValue().owner().equals(e.owner())) {
        int expiry = expirySeconds(e.leaseTime());
        LockRecord extended = current.getValue().with(current.getValue().holds(), expiry);
        writes[i] =
            items.sendCas(keys.lock(e.key().name()), current.getCas(), expiry, extended.encode());
      }
    }
    boolean[] held = new boolean[writes.length];
    for (int i = 0; i < writes.length; i++) {
      if (writes[i] == null) {
        continue; // Not this owner's (any more): false, nothing written.
      }
      StatusCode code = writes[i].status();
      if (code == StatusCode.ERR_EXISTS) {
        LeaseExtension e = extensions.get(i);
        held[i] = extend(e.key(), e.owner(), e.leaseTime());
      } else {
        held[i] = code == StatusCode.SUCCESS;
      }
    }
    return held;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    requireExclusive(key);
    String itemKey = keys.lock(key.name());
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Round trip 1: read the item to check the owner and take the CAS id of the version checked
      // (see extend for why a remembered CAS id is not used instead).
      CASValue<LockRecord> current = readItem(key);
      if (current == null || !current.getValue().owner().equals(owner)) {
        return ReleaseOutcome.NOT_HELD;
      }
      LockRecord held = current.getValue();
      StatusCode code;
      if (held.holds() > 1) {
        // A CAS must set an expiry and memcached does not tell the remaining one: give the
        // lease again in full. The item lives longer than the engine counts, never shorter.
        LockRecord less = held.with(held.holds() - 1, held.leaseSeconds());
        code = items.cas(itemKey, current.getCas(), held.leaseSeconds(), less.encode());
      } else {
        // Round trip 2: delete only the very item version we just checked: if our lease ran out
        // and someone else took the lock since, its CAS id differs and nothing is deleted.
        code = items.delete(itemKey, current.getCas());
      }
      if (code == StatusCode.SUCCESS) {
        return held.holds() > 1 ? ReleaseOutcome.HOLD_DECREMENTED : ReleaseOutcome.RELEASED;
      }
      if (code == StatusCode.ERR_NOT_FOUND) {
        return ReleaseOutcome.NOT_HELD;
      }
    }
    throw notSettled("release", key);
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    requireExclusive(key);
    CASValue<LockRecord> current = readItem(key);
    if (current == null) {
      return LockState.FREE;
    }
    LockRecord held = current.getValue();
    // Memcached does not report an item's remaining time, so remaining is unknown.
    return LockState.heldBy(held.owner(), held.holds(), null);
  }

  @Override
  public void close() {
    if (owner == ClientOwner.STORE) {
      client.shutdown(client.getOperationTimeout(), TimeUnit.MILLISECONDS);
    }
  }

  /** The lock item of {@code key} with its CAS id, or null if there is none. */
  private @Nullable CASValue<LockRecord> readItem(LockKey key) throws Exception {
    return record(key, items.gets(keys.lock(key.name())));
  }

  private @Nullable CASValue<LockRecord> record(LockKey key, @Nullable CASValue<String> item) {
    if (item == null) {
      return null;
    }
    String itemKey = keys.lock(key.name());
    try {
      return new CASValue<>(item.getCas(), LockRecord.decode(item.getValue()));
    } catch (IllegalArgumentException e) {
      throw new LockStoreException(
          String.format(
              "the memcached item of lock '%s' (%s) on %s holds something else: %s; another"
                  + " program writes to this key, use another keyPrefix",
              key.name(), itemKey, description, e.getMessage()),
          e);
    }
  }

  private LockStoreException notSettled(String operation, LockKey key) {
    return new LockStoreException(
        String.format(
            "%s of lock '%s' on %s did not settle after %d attempts: its item kept changing under"
                + " concurrent writes",
            operation, key.name(), description, MAX_ATTEMPTS));
  }

  private void requireExclusive(LockKey key) {
    if (key.mode() != LockMode.EXCLUSIVE) {
      throw new UnsupportedCapabilityException(
          Capability.READ_WRITE,
          description,
          "one memcached item has one expiry, so readers cannot each have their own lease");
    }
  }
}
