package dev.locksmith.redis;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.redis.internal.EvictionPolicy;
import dev.locksmith.redis.internal.KeyLayout;
import dev.locksmith.redis.internal.LockOperations;
import dev.locksmith.redis.internal.RedisEndpoint;
import dev.locksmith.redis.internal.RedisFailure;
import dev.locksmith.redis.internal.ReleaseChannel;
import dev.locksmith.redis.internal.ScriptOperations;
import dev.locksmith.redis.internal.WatchOperations;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.StoreFailure;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock store on one Redis node, a Sentinel-managed master, or a Redis Cluster, through Lettuce.
 *
 * <p>A lock is a hash {@code {owner: holds, token}} with a {@code PX} expiry judged on the server's
 * clock; a read-write lock adds a readers hash and a waiting-writers hash (see {@code KeyLayout}).
 * Every operation is atomic on the server (one Lua script, or a WATCH/MULTI/EXEC transaction with
 * {@link RedisStrategy#WATCH}) and checks the owner. A last release publishes on the lock's
 * channel; waiters listen through one shared pub/sub connection, and are woken when that connection
 * drops, so that a waiter whose link died is told at its next attempt instead of at the end of its
 * wait.
 *
 * <p><b>Nothing stays per lock name.</b> A free lock has no key: a release deletes it, an expiry
 * drops it. Fencing tokens come from a counter shared by all names under the key prefix (one per
 * hash slot on a cluster, at most 16,384, since a script may only touch the keys of one slot), so a
 * service that locks per order or per request does not grow the server.
 *
 * <p><b>Tokens survive eviction.</b> A fresh hold's token is {@code max(counter + 1, server TIME in
 * µs)}, stored back in the counter. While the counter exists, tokens rise whatever the clock does;
 * if it is lost (evicted under an {@code allkeys-*} policy, flushed, or forgotten by a restart
 * without persistence), the next token still lies above every token handed out before, as long as
 * the server's clock did not go back by more than the time since. That is why {@link
 * Capability#FENCING} is declared on every policy instead of being withdrawn on {@code allkeys-*}:
 * the promise holds there too, at the price of tokens that are large numbers (about the server's
 * clock in microseconds) rather than 1, 2, 3. The store still warns once at open (reading {@code
 * maxmemory-policy}) when the server may evict keys: a {@code volatile-*} or {@code allkeys-*}
 * policy can evict a held lock, and its holder only learns at its next renewal.
 *
 * <p><b>Upgrades.</b> Earlier versions kept a counter per name ({@code P{name}:fence}). This store
 * never creates one; where one exists, tokens are drawn above it and written back to it, so clients
 * of the earlier version still running in a rolling upgrade keep counting up from there. See the
 * module's README for removing them once every client is upgraded.
 *
 * <p>Capabilities: {@link Capability#FENCING}, {@link Capability#REENTRANCY}, {@link
 * Capability#READ_WRITE}, {@link Capability#WAKE_ON_RELEASE}, and {@link
 * Capability#DURABLE_FENCING} only on a single node that reported append-only-file persistence when
 * the store connected (the counter then survives a restart of the process, without relying on the
 * clock). Every failure of the server or the connection is thrown as {@link LockStoreException}
 * with Lettuce's exception as cause; commands are bounded by the URI's {@code timeout} (default 1
 * s).
 */
public final class RedisLockStore implements LockStore {

  private static final Logger log = LoggerFactory.getLogger(RedisLockStore.class);

  /** The key prefix used when {@code LockOptions.keyPrefix()} is not set. */
  public static final String DEFAULT_KEY_PREFIX = "locksmith:";

  /** The command timeout used when the URI sets none. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

  private final RedisEndpoint endpoint;
  private final KeyLayout layout;
  private final LockOperations operations;
  private final ReleaseChannel releases;
  private final Set<Capability> promises;
  private final String description;

  private RedisLockStore(RedisEndpoint endpoint, KeyLayout layout, RedisStrategy strategy) {
    this.endpoint = endpoint;
    this.layout = layout;
    this.operations =
        strategy == RedisStrategy.WATCH
            ? new WatchOperations(endpoint::newConnection, layout)
            : new ScriptOperations(
                endpoint,
                layout,
                endpoint.isCluster()
                    ? ScriptOperations.Wake.ALWAYS
                    : ScriptOperations.Wake.WHEN_SUBSCRIBED);
    this.releases = new ReleaseChannel(endpoint::newPubSub, endpoint.timeout());
    this.description = endpoint.description() + (strategy == RedisStrategy.WATCH ? " (watch)" : "");
    EvictionPolicy.warnIfEvicting(endpoint, log);
    this.promises =
        !endpoint.isCluster() && !endpoint.isSentinel() && appendOnly(endpoint)
            ? Set.of(Capability.FENCING, Capability.REENTRANCY, Capability.DURABLE_FENCING)
            : Set.of(Capability.FENCING, Capability.REENTRANCY);
  }

  /**
   * Connects to the node (or Sentinel master) at {@code uri}.
   *
   * @param uri where to connect, with credentials, database and TLS as Lettuce reads them; its
   *     timeout is the command timeout
   * @param keyPrefix put before every key, such as {@link #DEFAULT_KEY_PREFIX}; no braces
   * @param strategy how operations are made atomic
   * @throws IllegalArgumentException if the prefix has a brace
   * @throws LockStoreException if the server cannot be reached or refuses the credentials
   */
  public static RedisLockStore connect(RedisURI uri, String keyPrefix, RedisStrategy strategy) {
    Objects.requireNonNull(uri, "uri must not be null");
    Objects.requireNonNull(strategy, "strategy must not be null");
    KeyLayout layout = new KeyLayout(keyPrefix);
    RedisEndpoint endpoint =
        open(
            () -> RedisEndpoint.single(uri, uri.getTimeout(), null),
            RedisEndpoint.describe(uri),
            uri.getDatabase());
    return finish(endpoint, layout, strategy);
  }

  /**
   * Connects to the Redis Cluster that {@code seeds} belong to; uses the script strategy (all keys
   * of a name share one hash slot).
   *
   * @throws IllegalArgumentException if there are no seeds or the prefix has a brace
   * @throws LockStoreException if no seed can be reached or they refuse the credentials
   */
  public static RedisLockStore connectCluster(List<RedisURI> seeds, String keyPrefix) {
    Objects.requireNonNull(seeds, "seeds must not be null");
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one seed node");
    }
    KeyLayout layout = KeyLayout.clustered(keyPrefix);
    RedisEndpoint endpoint =
        open(() -> RedisEndpoint.cluster(seeds), RedisEndpoint.describeCluster(seeds), 0);
    return finish(endpoint, layout, RedisStrategy.SCRIPT);
  }

  private static RedisEndpoint open(Supplier<RedisEndpoint> connect, String what, int database) {
    RuntimeException failure;
    try {
      return connect.get();
    } catch (RuntimeException e) {
      failure = e;
    }
    if (RedisFailure.lostServerAnswer(failure)) {
      // Lettuce can lose the server's refusal (WRONGPASS…) when the server closes the connection
      // right after it, under load: ask once more, so that the message names the real reason.
      try {
        return connect.get();
      } catch (RuntimeException again) {
        failure = again;
      }
    }
    throw new LockStoreException(
        "cannot open a lock store on " + what + ": " + RedisFailure.reason(failure, database),
        failure);
  }

  private static RedisLockStore finish(
      RedisEndpoint endpoint, KeyLayout layout, RedisStrategy strategy) {
    try {
      return new RedisLockStore(endpoint, layout, strategy);
    } catch (RuntimeException e) {
      endpoint.close();
      throw e;
    }
  }

  private static boolean appendOnly(RedisEndpoint endpoint) {
    try {
      String info = endpoint.commands().info("persistence");
      return info.contains("aof_enabled:1");
    } catch (RuntimeException e) {
      log.info(
          "Cannot read INFO persistence of {} ({}); not declaring durable fencing",
          endpoint.description(),
          e.toString());
      return false;
    }
  }

  @Override
  public String keyPrefix() {
    return layout.prefix();
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Set<Capability> promises() {
    return promises;
  }

  /** The lease in whole milliseconds, rounded up so the server never holds less than asked. */
  static long millis(Duration lease) {
    return LockOperations.millis(lease);
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    return operations.acquire(key, owner, millis(leaseTime));
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    return operations.extend(key, owner, millis(leaseTime));
  }

  /** With the script strategy, one round trip for the batch: the scripts are pipelined. */
  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) {
    return operations.extendAll(extensions);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    return operations.release(key, owner);
  }

  @Override
  public LockState read(LockKey key) {
    return operations.read(key);
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return Optional.of(operations::withdraw);
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return Optional.of((key, onRelease) -> releases.listen(layout.channel(key), onRelease));
  }

  @Override
  public StoreFailure classify(Exception failure) {
    return RedisFailure.kind(failure);
  }

  @Override
  public void close() {
    releases.close();
    operations.close();
    endpoint.close();
  }

  @Override
  public String toString() {
    return "RedisLockStore{" + description + ", prefix=" + layout.prefix() + "}";
  }
}
