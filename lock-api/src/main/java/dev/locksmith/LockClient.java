package dev.locksmith;

import dev.locksmith.internal.EngineClient;
import dev.locksmith.internal.ProviderRegistry;
import dev.locksmith.spi.LockStore;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;

/**
 * A connection to one lock store: the entry point of Locksmith.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.open("redis://localhost:6379")) {
 *   DistributedLock lock = client.lock("orders:42");
 *   try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     store.write(order, lease.fencingToken());
 *   }
 * }
 * }</pre>
 *
 * <p>{@link #open(String)} finds the store's {@link dev.locksmith.spi.LockProvider} with {@link
 * java.util.ServiceLoader} by the URI's scheme ({@code mem:}, {@code redis://}, {@code
 * memcached://}, {@code zookeeper://}, {@code jdbc:}…); {@link #of(LockStore, LockOptions)} wraps a
 * store built from an existing connection (a {@code DataSource}, a {@code CuratorFramework}…).
 *
 * <p>A client is thread-safe and meant to be shared. It stands for one process: two clients on the
 * same store exclude each other exactly like two processes do. {@link #close()} releases the leases
 * it still holds, stops their renewal and closes the store connection.
 */
public interface LockClient extends AutoCloseable {

  /**
   * Opens a client for {@code uri} with default options; options may also be given in the URI's
   * query ({@code ?leaseTime=10s&autoRenew=false}).
   *
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if the URI is malformed or has an unknown option
   * @throws UnsupportedLockUriException if no provider handles the URI's scheme
   * @throws LockStoreException if the store cannot be reached
   */
  static LockClient open(String uri) {
    return open(uri, LockOptions.defaults());
  }

  /**
   * Opens a client for {@code uri} with {@code options}. An option set both in the URI and in
   * {@code options} to different values is rejected.
   *
   * @see #open(String)
   */
  static LockClient open(String uri, LockOptions options) {
    Objects.requireNonNull(uri, "uri must not be null");
    Objects.requireNonNull(options, "options must not be null");
    return ProviderRegistry.shared().open(uri, options);
  }

  /** Opens a client for {@code uri}; see {@link #open(String)}. */
  static LockClient open(URI uri) {
    Objects.requireNonNull(uri, "uri must not be null");
    return open(uri.toString(), LockOptions.defaults());
  }

  /**
   * Opens a client for {@code uri} with {@code options}; see {@link #open(String, LockOptions)}.
   */
  static LockClient open(URI uri, LockOptions options) {
    Objects.requireNonNull(uri, "uri must not be null");
    return open(uri.toString(), options);
  }

  /**
   * Wraps a store that the caller built (for example a JDBC store over an existing {@code
   * DataSource}). The client owns the store from now on and closes it on {@link #close()}.
   */
  static LockClient of(LockStore store, LockOptions options) {
    Objects.requireNonNull(store, "store must not be null");
    Objects.requireNonNull(options, "options must not be null");
    return new EngineClient(store, options);
  }

  /**
   * Wraps a store that the caller built, with default options; see {@link #of(LockStore,
   * LockOptions)}.
   */
  static LockClient of(LockStore store) {
    return of(store, LockOptions.defaults());
  }

  /**
   * The exclusive lock called {@code name}.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is blank, longer than 256 UTF-8 bytes, or has
   *     control characters or unpaired surrogates
   */
  DistributedLock lock(String name);

  /**
   * The read-write lock called {@code name}.
   *
   * @throws UnsupportedCapabilityException if the store lacks {@link Capability#READ_WRITE}
   * @throws IllegalArgumentException if {@code name} is not a valid name (see {@link #lock})
   */
  DistributedReadWriteLock readWriteLock(String name);

  /**
   * The exclusive locks called {@code names}, to be taken together, all or nothing, in a canonical
   * order that cannot deadlock.
   *
   * @throws IllegalArgumentException if there are no names, a name is invalid, or a name repeats
   */
  MultiLock lockAll(Collection<String> names);

  /** Same as {@link #lockAll(Collection)}. */
  MultiLock lockAll(String... names);

  /** What this store can promise beyond the core contract. */
  Set<Capability> capabilities();

  /**
   * The shortest lease this store can hold (memcached and etcd: a second or more; most stores: a
   * millisecond). {@link DistributedLock#withLeaseTime} and the options refuse shorter leases with
   * {@link IllegalArgumentException}; a bridge whose callers ask for shorter holds (ShedLock's
   * {@code lockAtMostFor}) takes this lease and ends the hold itself.
   */
  Duration minimumLease();

  /** The options in force: defaults, overridden by the URI and by the options passed to open. */
  LockOptions options();

  /**
   * Releases every lease this client still holds (best effort: a store failure is logged), stops
   * their renewal and closes the store connection. Calling it again is a no-op. Using the client
   * afterwards throws {@link IllegalStateException}.
   */
  @Override
  void close();
}
