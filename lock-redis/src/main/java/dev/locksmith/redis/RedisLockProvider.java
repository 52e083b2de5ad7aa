package dev.locksmith.redis;

import dev.locksmith.LockOptions;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import io.lettuce.core.RedisURI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Opens Redis lock stores for {@code redis://}, {@code rediss://}, {@code redis-socket://}, {@code
 * redis-sentinel://}, {@code rediss-sentinel://} (one master, parsed by Lettuce's {@link
 * RedisURI}), {@code redis-cluster://} and {@code rediss-cluster://} (a cluster, {@code
 * host:port,host:port} seeds) and {@code redlock://} / {@code redlocks://} (Redlock over
 * independent masters).
 *
 * <p>Store options: {@code strategy=script|watch} (single node), {@code timeout} (command timeout;
 * per node for Redlock), {@code driftFactor} and {@code restartDelay} (Redlock), and Lettuce's
 * {@code database}, {@code clientName}, {@code sentinelMasterId}, {@code verifyPeer}. A malformed
 * URI or an option that does not apply to the scheme fails with {@link IllegalArgumentException};
 * an unreachable server or wrong credentials with {@code LockStoreException}.
 */
public final class RedisLockProvider implements LockProvider {

  private static final Set<String> SINGLE =
      Set.of("redis", "rediss", "redis-socket", "redis-sentinel", "rediss-sentinel");
  private static final Set<String> CLUSTER = Set.of("redis-cluster", "rediss-cluster");
  private static final Set<String> REDLOCK = Set.of("redlock", "redlocks");
  private static final List<String> LETTUCE_OPTIONS =
      List.of("database", "clientName", "sentinelMasterId", "verifyPeer");

  @Override
  public Set<String> schemes() {
    Set<String> all = new java.util.TreeSet<>(SINGLE);
    all.addAll(CLUSTER);
    all.addAll(REDLOCK);
    return Set.copyOf(all);
  }

  @Override
  public Set<String> options() {
    return Set.of(
        "strategy",
        "timeout",
        "driftFactor",
        "restartDelay",
        "database",
        "clientName",
        "sentinelMasterId",
        "verifyPeer");
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    Map<String, String> opts = uri.storeOptions();
    String scheme = uri.scheme();
    String prefix = options.keyPrefix().orElse(RedisLockStore.DEFAULT_KEY_PREFIX);
    if (!REDLOCK.contains(scheme)) {
      onlyFor(uri, opts, "driftFactor", "redlock://");
      onlyFor(uri, opts, "restartDelay", "redlock://");
    }
    if (SINGLE.contains(scheme)) {
      checkSingle(uri);
      RedisURI redisUri = lettuceUri(scheme + ":" + uri.body(), opts, uri);
      redisUri.setTimeout(timeout(uri, RedisLockStore.DEFAULT_TIMEOUT));
      return RedisLockStore.connect(redisUri, prefix, strategy(opts));
    }
    if (strategy(opts) != RedisStrategy.SCRIPT) {
      throw new IllegalArgumentException(
          "strategy=watch works on a single node only, not with " + scheme + "://");
    }
    if (CLUSTER.contains(scheme)) {
      List<RedisURI> seeds = hosts(uri, scheme.equals("rediss-cluster") ? "rediss" : "redis", opts);
      Duration timeout = timeout(uri, RedisLockStore.DEFAULT_TIMEOUT);
      seeds.forEach(s -> s.setTimeout(timeout));
      return RedisLockStore.connectCluster(seeds, prefix);
    }
    List<RedisURI> nodes = hosts(uri, scheme.equals("redlocks") ? "rediss" : "redis", opts);
    Duration timeout = timeout(uri, RedlockStore.DEFAULT_NODE_TIMEOUT);
    nodes.forEach(n -> n.setTimeout(timeout));
    double drift = RedlockStore.DEFAULT_DRIFT_FACTOR;
    if (opts.containsKey("driftFactor")) {
      try {
        drift = Double.parseDouble(opts.get("driftFactor"));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "driftFactor '" + opts.get("driftFactor") + "' is not a number, such as 0.01", e);
      }
    }
    Duration restartDelay =
        uri.durationOption(
            "restartDelay", options.leaseTime(), Duration.ZERO, LockOptions.MAX_LEASE_TIME);
    return RedlockStore.connect(
        nodes, prefix, new RedlockStore.Settings(timeout, drift, restartDelay));
  }

  private static void onlyFor(LockUri uri, Map<String, String> opts, String option, String for_) {
    if (opts.containsKey(option)) {
      throw new IllegalArgumentException(
          "option '" + option + "' applies to " + for_ + " only, not to '" + uri + "'");
    }
  }

  private static RedisStrategy strategy(Map<String, String> opts) {
    String s = opts.getOrDefault("strategy", "script").strip().toLowerCase(Locale.ROOT);
    switch (s) {
      case "script":
        return RedisStrategy.SCRIPT;
      case "watch":
        return RedisStrategy.WATCH;
      default:
        throw new IllegalArgumentException(
            "strategy must be 'script' or 'watch', was '" + opts.get("strategy") + "'");
    }
  }

  private static Duration timeout(LockUri uri, Duration fallback) {
    return uri.durationOption("timeout", fallback, Duration.ofMillis(1), Duration.ofMinutes(10));
  }

  private static RedisURI lettuceUri(String base, Map<String, String> opts, LockUri original) {
    StringBuilder sb = new StringBuilder(base);
    char sep = '?';
    for (String k : LETTUCE_OPTIONS) {
      if (opts.containsKey(k)) {
        sb.append(sep)
            .append(k)
            .append('=')
            .append(URLEncoder.encode(opts.get(k), StandardCharsets.UTF_8));
        sep = '&';
      }
    }
    try {
      return RedisURI.create(sb.toString());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "malformed Redis URI '" + original + "': " + e.getMessage(), e);
    }
  }

  /**
   * Checks a single-node or Sentinel URI before Lettuce sees it: Lettuce would take a malformed
   * {@code host:port} for a host name and look it up, so a typo would cost a DNS lookup and a
   * connect timeout instead of a clear message.
   */
  private static void checkSingle(LockUri uri) {
    if (uri.scheme().equals("redis-socket")) {
      return; // A socket path, no host list.
    }
    boolean sentinel = uri.scheme().endsWith("-sentinel");
    LockUri.Authority authority = uri.authority(sentinel ? 26379 : 6379);
    if (!sentinel && authority.servers().size() > 1) {
      throw new IllegalArgumentException(
          "lock URI '"
              + uri
              + "' names "
              + authority.servers().size()
              + " servers; "
              + uri.scheme()
              + ":// takes one (use redis-cluster://, redis-sentinel:// or redlock:// for more)");
    }
    database(uri, authority.path());
  }

  /** The database index in {@code path} ({@code ""}, {@code "/"} or {@code "/N"}). */
  private static int database(LockUri uri, String path) {
    if (path.isEmpty() || path.equals("/")) {
      return 0;
    }
    String db = path.substring(1);
    if (!db.matches("\\d{1,9}")) {
      throw new IllegalArgumentException(
          "lock URI '"
              + uri
              + "' has path '"
              + path
              + "'; the path of a Redis URI is a database number, such as /0");
    }
    return Integer.parseInt(db);
  }

  /** {@code //[user:pass@]h1:p1,h2:p2[/db]} as one Lettuce URI per host. */
  private static List<RedisURI> hosts(LockUri uri, String nodeScheme, Map<String, String> opts) {
    LockUri.Authority authority = uri.authority(6379);
    int database = database(uri, authority.path());
    // Lettuce's own options (database, clientName, verifyPeer) apply to every node.
    RedisURI options = lettuceUri("redis://localhost/" + database, opts, uri);
    List<RedisURI> uris = new ArrayList<>();
    for (LockUri.Server server : authority.servers()) {
      RedisURI.Builder node =
          RedisURI.builder()
              .withHost(server.host())
              .withPort(server.port())
              .withSsl(nodeScheme.equals("rediss"))
              .withVerifyPeer(options.getVerifyMode())
              .withDatabase(options.getDatabase());
      if (options.getClientName() != null) {
        node.withClientName(options.getClientName());
      }
      String password = authority.password();
      if (password != null) {
        String user = authority.user();
        if (user != null) {
          node.withAuthentication(user, password.toCharArray());
        } else {
          node.withPassword(password.toCharArray());
        }
      }
      uris.add(node.build());
    }
    return uris;
  }
}
