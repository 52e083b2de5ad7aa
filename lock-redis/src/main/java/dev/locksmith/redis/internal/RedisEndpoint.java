package dev.locksmith.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Lettuce side of one store: a single node (or a Sentinel-managed master) or a cluster, its
 * shared command connection, and factories for the extra connections (pub/sub, transactions).
 *
 * <p>Connections fail fast instead of queueing while disconnected ({@code REJECT_COMMANDS}), so an
 * unreachable server is reported at once; they reconnect on their own with a short capped backoff,
 * so the same client works again as soon as the server is back. Every command is bounded by the
 * command timeout.
 */
public final class RedisEndpoint implements AutoCloseable {

  private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(1);

  private static volatile @Nullable ClientResources shared;

  private final @Nullable RedisClient client;
  private final @Nullable RedisClusterClient cluster;
  private final @Nullable RedisURI uri;
  private final AutoCloseable connection;
  private final RedisClusterCommands<String, String> commands;
  private final RedisClusterAsyncCommands<String, String> asyncCommands;
  private final String description;
  private final Duration timeout;

  private RedisEndpoint(
      @Nullable RedisClient client,
      @Nullable RedisClusterClient cluster,
      @Nullable RedisURI uri,
      AutoCloseable connection,
      RedisClusterCommands<String, String> commands,
      RedisClusterAsyncCommands<String, String> asyncCommands,
      String description,
      Duration timeout) {
    this.timeout = timeout;
    this.client = client;
    this.cluster = cluster;
    this.uri = uri;
    this.connection = connection;
    this.commands = commands;
    this.asyncCommands = asyncCommands;
    this.description = description;
  }

  /**
   * The event loops and timers all Locksmith Redis clients of this JVM share (Lettuce's threads are
   * daemons); reconnects back off from 10 ms to 1 s.
   */
  public static ClientResources sharedResources() {
    ClientResources r = shared;
    if (r == null) {
      synchronized (RedisEndpoint.class) {
        r = shared;
        if (r == null) {
          r =
              DefaultClientResources.builder()
                  .reconnectDelay(
                      () ->
                          Delay.exponential(
                              Duration.ofMillis(10),
                              Duration.ofSeconds(1),
                              2,
                              java.util.concurrent.TimeUnit.MILLISECONDS))
                  .build();
          shared = r;
        }
      }
    }
    return r;
  }

  private static SocketOptions socketOptions(Duration timeout) {
    Duration connect =
        timeout.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : timeout;
    return SocketOptions.builder().connectTimeout(connect).keepAlive(true).build();
  }

  private static ClientOptions clientOptions(Duration timeout) {
    return ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        // Each connection's own timeout bounds its synchronous commands (set after connecting, as
        // the URI's bounds the handshake). Lettuce's per-command timeouts would also schedule a
        // timer task per command, 6-10 % of the throughput at 16 threads; the store sends no
        // asynchronous command that waits without a bound of its own.
        .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
        .socketOptions(socketOptions(timeout))
        .build();
  }

  /**
   * Connects to one node (or the master that Sentinel names) and checks the credentials.
   *
   * @param commandTimeout bounds every command; the connection handshake gets at least 1 s
   * @param onConnect runs on every (re)connect of any of the endpoint's connections, or null
   * @throws RuntimeException the driver's failure if the server cannot be reached or refuses
   */
  public static RedisEndpoint single(
      RedisURI uri, Duration commandTimeout, @Nullable Runnable onConnect) {
    RedisURI connectUri = uri;
    if (commandTimeout.compareTo(HANDSHAKE_TIMEOUT) < 0) {
      // Lettuce bounds the handshake (HELLO, AUTH) with the URI's timeout; commands get theirs.
      connectUri = RedisURI.builder(uri).withTimeout(HANDSHAKE_TIMEOUT).build();
    }
    RedisClient client = RedisClient.create(sharedResources(), connectUri);
    client.setOptions(clientOptions(commandTimeout));
    if (onConnect != null) {
      client.addListener(
          new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(
                io.lettuce.core.RedisChannelHandler<?, ?> connection, SocketAddress address) {
              onConnect.run();
            }
          });
    }
    try {
      StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
      c.setTimeout(commandTimeout);
      return new RedisEndpoint(
          client, null, uri, c, c.sync(), c.async(), describe(uri), commandTimeout);
    } catch (RuntimeException e) {
      shutDownQuietly(client);
      throw e;
    }
  }

  /**
   * Connects to a cluster through its seed nodes.
   *
   * @throws RuntimeException the driver's failure if no seed can be reached or they refuse
   */
  public static RedisEndpoint cluster(List<RedisURI> seeds) {
    Duration timeout = seeds.get(0).getTimeout();
    RedisClusterClient cluster = RedisClusterClient.create(sharedResources(), seeds);
    cluster.setOptions(
        ClusterClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(timeout))
            .socketOptions(socketOptions(timeout))
            .build());
    try {
      StatefulRedisClusterConnection<String, String> c = cluster.connect(StringCodec.UTF8);
      return new RedisEndpoint(
          null, cluster, null, c, c.sync(), c.async(), describeCluster(seeds), timeout);
    } catch (RuntimeException e) {
      shutDownQuietly(cluster);
      throw e;
    }
  }

  /**
   * Shuts down a client, keeping its event loops accepting work past the handshake timer: that
   * timer still fires after a refused connect (or a reconnect cut short), and when this client was
   * the last one using the shared loops, a plain shutdown stopped them first, so the timer's
   * promise logged an ERROR with a stack trace ("Event loop shut down?") once per failed open.
   */
  private static void shutDownQuietly(AbstractRedisClient client) {
    long quiet = HANDSHAKE_TIMEOUT.toMillis() * 2;
    client.shutdownAsync(quiet, quiet * 2, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** {@code redis-cluster://host:port,…} for {@code seeds}, without credentials. */
  public static String describeCluster(List<RedisURI> seeds) {
    StringBuilder d = new StringBuilder("redis-cluster://");
    for (int i = 0; i < seeds.size(); i++) {
      d.append(i > 0 ? "," : "").append(seeds.get(i).getHost()).append(':');
      d.append(seeds.get(i).getPort());
    }
    return d.toString();
  }

  /** {@code redis://host:port[/db]} and the like for {@code uri}, without credentials. */
  public static String describe(RedisURI uri) {
    if (uri.getSocket() != null) {
      return "redis-socket://" + uri.getSocket();
    }
    if (!uri.getSentinels().isEmpty()) {
      RedisURI s = uri.getSentinels().get(0);
      return "redis-sentinel://"
          + s.getHost()
          + ":"
          + s.getPort()
          + "#"
          + uri.getSentinelMasterId();
    }
    return (uri.isSsl() ? "rediss://" : "redis://")
        + uri.getHost()
        + ":"
        + uri.getPort()
        + (uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "");
  }

  /** Whether this is a cluster. */
  public boolean isCluster() {
    return cluster != null;
  }

  /** Whether the master is chosen by Sentinel (it may fail over to a replica). */
  public boolean isSentinel() {
    return uri != null && !uri.getSentinels().isEmpty();
  }

  /** The shared command connection (thread-safe, pipelined). */
  public RedisClusterCommands<String, String> commands() {
    return commands;
  }

  /**
   * The same shared connection's asynchronous commands, for sending many commands before reading
   * their replies; on a single node they are unbounded by a timeout (see {@code clientOptions}), so
   * the caller bounds its wait.
   */
  public RedisClusterAsyncCommands<String, String> asyncCommands() {
    return asyncCommands;
  }

  /** A new dedicated connection for transactions; single node only. */
  public StatefulRedisConnection<String, String> newConnection() {
    if (client == null) {
      throw new UnsupportedOperationException("transactions need a single-node endpoint");
    }
    StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
    c.setTimeout(timeout);
    return c;
  }

  /** A new pub/sub connection. */
  public StatefulRedisPubSubConnection<String, String> newPubSub() {
    if (client != null) {
      StatefulRedisPubSubConnection<String, String> c = client.connectPubSub(StringCodec.UTF8);
      c.setTimeout(timeout);
      return c;
    }
    return Objects.requireNonNull(cluster).connectPubSub(StringCodec.UTF8);
  }

  /**
   * {@code CONFIG GET pattern} on the node, or on every master of a cluster, by node address.
   *
   * @throws RuntimeException the driver's failure if a node refuses (an ACL user without {@code
   *     CONFIG}, a managed service that renamed it) or cannot be reached
   */
  public Map<String, Map<String, String>> config(String pattern) {
    if (cluster == null) {
      return Map.of(description, commands.configGet(pattern));
    }
    @SuppressWarnings("unchecked")
    StatefulRedisClusterConnection<String, String> c =
        (StatefulRedisClusterConnection<String, String>) connection;
    Map<String, Map<String, String>> answers = new LinkedHashMap<>();
    for (RedisClusterNode node : c.getPartitions()) {
      if (node.getRole().isUpstream()) {
        RedisURI at = node.getUri();
        answers.put(
            at.getHost() + ":" + at.getPort(),
            c.getConnection(node.getNodeId()).sync().configGet(pattern));
      }
    }
    return answers;
  }

  /** The command timeout. */
  public Duration timeout() {
    return timeout;
  }

  /** {@code redis://host:port} and the like, without credentials. */
  public String description() {
    return description;
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (Exception e) {
      // Closing is best effort; the client shutdown below releases the sockets anyway.
    }
    // A reconnect may be in its handshake when the store closes: the same quiet period as a
    // failed open, so that its timer finds the event loops still running.
    if (client != null) {
      shutDownQuietly(client);
    }
    if (cluster != null) {
      shutDownQuietly(cluster);
    }
  }
}
