package dev.locksmith.memcached;

import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.memcached.internal.StoreKeys;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens {@link MemcachedLockStore}s for {@code memcached://host[:port][,host[:port]]…[?options]}.
 *
 * <p>The port defaults to 11211; IPv6 hosts go in brackets ({@code memcached://[::1]:11211}).
 * Options besides the common ones of {@link LockOptions}: {@code operationTimeout} (default {@code
 * 1s}: how long one memcached call may take before it fails with {@link LockStoreException}) and
 * {@code fencing} ({@code true} by default; {@code false} turns fencing tokens off, for clients
 * whose clocks are not kept in step). {@code keyPrefix} defaults to {@value
 * MemcachedLockStore#DEFAULT_KEY_PREFIX}; a prefix containing {@code lock:} or {@code fence:} is
 * refused with {@link IllegalArgumentException} (its keys could be another prefix's).
 *
 * <p>The spymemcached client it builds speaks the binary protocol, cancels operations for a server
 * it is not connected to instead of queueing them or sending them to another server ({@link
 * FailureMode#Cancel}), places keys with ketama consistent hashing and reconnects within a second.
 * {@link #open} fails with {@link LockStoreException} when no server answers within the operation
 * timeout; a server that goes away later fails the operations on its keys with {@link
 * LockStoreException}, and the client recovers by itself once the server is back.
 */
public final class MemcachedLockProvider implements LockProvider {

  /** The option that sets the per-call timeout. */
  public static final String OPERATION_TIMEOUT = LockUri.OPERATION_TIMEOUT;

  /** The option that turns fencing tokens on or off. */
  public static final String FENCING = "fencing";

  /** The port used when a host has none. */
  public static final int DEFAULT_PORT = 11211;

  private static final Logger log = LoggerFactory.getLogger(MemcachedLockProvider.class);

  @Override
  public Set<String> schemes() {
    return Set.of("memcached");
  }

  @Override
  public Set<String> options() {
    return Set.of(OPERATION_TIMEOUT, FENCING);
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    List<InetSocketAddress> servers = servers(uri);
    Duration timeout = uri.operationTimeout(Duration.ofSeconds(1));
    MemcachedLockStore.Fencing fencing =
        uri.booleanOption(FENCING, true)
            ? MemcachedLockStore.Fencing.ON
            : MemcachedLockStore.Fencing.OFF;
    String prefix = options.keyPrefix().orElse(MemcachedLockStore.DEFAULT_KEY_PREFIX);
    // An unusable prefix is refused before a client connects (and would have to be shut down).
    StoreKeys.requireUsable(prefix);
    String description =
        "memcached://"
            + servers.stream()
                .map(a -> hostText(a) + ":" + a.getPort())
                .collect(Collectors.joining(","));

    MemcachedClient client;
    try {
      client = new MemcachedClient(connectionFactory(timeout, servers.size()), servers);
    } catch (IOException | RuntimeException e) {
      throw new LockStoreException("could not create a memcached client for " + description, e);
    }
    try {
      awaitConnections(client, servers.size(), timeout);
      requireAnswer(client, description, timeout);
      return MemcachedLockStore.onOwnClient(client, prefix, fencing, description);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  /**
   * The connection settings a lock needs: binary protocol (for delete-with-CAS), a short operation
   * timeout, and {@link FailureMode#Cancel}, because sending a lock operation to another server
   * when its own is down would let a second holder in, and queueing it would hang the caller.
   * Several servers share the keys by ketama consistent hashing; one server gets every key without
   * hashing, since ketama's MD5 of every key of every operation (five per acquire and release) was
   * the largest part of the client's own work.
   */
  static ConnectionFactory connectionFactory(Duration operationTimeout, int servers) {
    long millis = operationTimeout.toMillis();
    ConnectionFactoryBuilder builder = new ConnectionFactoryBuilder();
    if (servers > 1) {
      builder
          .setLocatorType(ConnectionFactoryBuilder.Locator.CONSISTENT)
          .setHashAlg(DefaultHashAlgorithm.KETAMA_HASH);
    }
    return builder
        .setProtocol(ConnectionFactoryBuilder.Protocol.BINARY)
        .setFailureMode(FailureMode.Cancel)
        .setOpTimeout(millis)
        .setOpQueueMaxBlockTime(millis)
        // Seconds: retry a lost connection at least every second so the client recovers quickly.
        .setMaxReconnectDelay(1)
        // A server that stopped answering is dropped and reconnected after a few timeouts.
        .setTimeoutExceptionThreshold(4)
        .setDaemon(true)
        .build();
  }

  /**
   * Waits up to {@code timeout} for the first connections, so the first lock operation is not
   * cancelled merely because connecting was still in progress. A server that stays unreachable is
   * not an error here: operations on its keys fail until it is back.
   */
  private static void awaitConnections(MemcachedClient client, int servers, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (client.getAvailableServers().size() < servers && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(2_000_000L);
    }
    if (client.getAvailableServers().size() < servers) {
      log.warn(
          "memcached servers {} are not reachable yet; locks on their keys fail until they are",
          client.getUnavailableServers());
    }
  }

  /**
   * Fails unless at least one server answers a {@code version} request: spymemcached connects
   * lazily and in the background, so without this check a store with no server behind it would open
   * fine and fail every operation afterwards, one timeout at a time.
   */
  private static void requireAnswer(MemcachedClient client, String description, Duration timeout) {
    Map<SocketAddress, String> versions;
    try {
      versions = client.getVersions();
    } catch (RuntimeException e) {
      versions = Map.of();
    }
    if (versions.isEmpty()) {
      throw new LockStoreException(
          "cannot open a lock store on "
              + description
              + ": no server answered within "
              + timeout.toMillis()
              + " ms (is memcached running there, and is it memcached?)");
    }
  }

  /** Parses the host list of {@code uri}. */
  static List<InetSocketAddress> servers(LockUri uri) {
    LockUri.Authority authority =
        uri.serversOnly(DEFAULT_PORT, "memcached://host:11211[,host2:11211]");
    if (authority.user() != null || authority.password() != null) {
      throw new IllegalArgumentException(
          "lock URI '"
              + uri
              + "' has user info; SASL is not configured through the URI: build a MemcachedClient"
              + " with an AuthDescriptor and use new MemcachedLockStore(client)");
    }
    List<InetSocketAddress> out = new ArrayList<>();
    for (LockUri.Server server : authority.servers()) {
      out.add(new InetSocketAddress(server.host(), server.port()));
    }
    return out;
  }

  private static String hostText(InetSocketAddress a) {
    String h = a.getHostString();
    return h.contains(":") ? "[" + h + "]" : h;
  }
}
