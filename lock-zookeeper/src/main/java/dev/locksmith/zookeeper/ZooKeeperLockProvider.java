package dev.locksmith.zookeeper;

import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import dev.locksmith.zookeeper.internal.LockNodes;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

/**
 * Opens {@link ZooKeeperLockStore}s for {@code zookeeper://} URIs.
 *
 * <p>Grammar: {@code
 * zookeeper://[user:password@]host[:port][,host[:port]…][/base/path][?sessionTimeout=10s&connectionTimeout=2s]}.
 * The base path defaults to {@code /locksmith}; the port to 2181. With {@code user:password} the
 * client authenticates with ZooKeeper's {@code digest} scheme and every node it creates carries
 * creator-all plus world-read ACLs, so other identities can see but not delete or take its locks.
 * The common option {@code keyPrefix} is put before every lock name. The store owns its Curator
 * client: closing it ends the session.
 *
 * <p>{@link #open} fails with {@link LockStoreException} if no server answers within the connection
 * timeout, and with {@link IllegalArgumentException} for a malformed URI or option, or a base path
 * in the server's reserved tree {@code /zookeeper} (before connecting).
 */
public final class ZooKeeperLockProvider implements LockProvider {

  /** The option for the ZooKeeper session timeout (a duration such as {@code 10s}). */
  public static final String SESSION_TIMEOUT = "sessionTimeout";

  /**
   * The option for how long an operation waits for a connection (a duration such as {@code 3s}).
   */
  public static final String CONNECTION_TIMEOUT = "connectionTimeout";

  /** The base path when the URI has none. */
  public static final String DEFAULT_BASE_PATH = "/locksmith";

  static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(2);

  @Override
  public Set<String> schemes() {
    return Set.of("zookeeper");
  }

  @Override
  public Set<String> options() {
    return Set.of(SESSION_TIMEOUT, CONNECTION_TIMEOUT);
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    Target target = parse(uri);
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(target.hosts)
            .sessionTimeoutMs(millis(target.sessionTimeout))
            .connectionTimeoutMs(millis(target.connectionTimeout))
            // Few, quick retries: the engine owns waiting, and a store call must fail in bounded
            // time when ZooKeeper is gone.
            .retryPolicy(new RetryNTimes(1, 50))
            .waitForShutdownTimeoutMs(millis(target.connectionTimeout));
    List<ACL> acl = null;
    if (target.credentials != null) {
      builder.authorization("digest", target.credentials.getBytes(StandardCharsets.UTF_8));
      acl = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
      acl.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
    }
    CuratorFramework curator = builder.build();
    curator.start();
    boolean ready = false;
    try {
      if (!curator.blockUntilConnected(millis(target.connectionTimeout), TimeUnit.MILLISECONDS)) {
        throw new LockStoreException(
            "could not connect to zookeeper at "
                + target.hosts
                + " within "
                + target.connectionTimeout.toMillis()
                + " ms ("
                + uri
                + ")");
      }
      String keyPrefix = options.keyPrefix().orElse("");
      ZooKeeperLockStore store =
          ZooKeeperLockStore.owning(curator, target.basePath, acl, keyPrefix);
      ready = true;
      return store;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockStoreException("interrupted while connecting to zookeeper at " + uri, e);
    } finally {
      if (!ready) {
        curator.close();
      }
    }
  }

  private static int millis(Duration d) {
    return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
  }

  /** The parts of a {@code zookeeper://} URI. */
  record Target(
      String hosts,
      String basePath,
      @Nullable String credentials,
      Duration sessionTimeout,
      Duration connectionTimeout) {}

  /** Parses {@code uri}; package-private for tests. */
  static Target parse(LockUri uri) {
    String body = uri.body();
    if (!body.startsWith("//")) {
      throw new IllegalArgumentException(
          "zookeeper URI '"
              + uri
              + "' must start with zookeeper://, as in zookeeper://host:2181/base/path");
    }
    String rest = body.substring(2);
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    String path = slash < 0 ? "" : rest.substring(slash);
    String credentials = null;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      authority = authority.substring(at + 1);
      int colon = userInfo.indexOf(':');
      if (colon <= 0 || colon == userInfo.length() - 1) {
        throw new IllegalArgumentException(
            "zookeeper URI '" + uri + "' must give credentials as user:password@");
      }
      credentials =
          decode(userInfo.substring(0, colon)) + ":" + decode(userInfo.substring(colon + 1));
    }
    if (authority.isEmpty()) {
      throw new IllegalArgumentException(
          "zookeeper URI '" + uri + "' names no server; write zookeeper://host:2181[,host2:2181]");
    }
    StringBuilder hosts = new StringBuilder();
    for (String host : authority.split(",", -1)) {
      if (host.isEmpty()) {
        throw new IllegalArgumentException(
            "zookeeper URI '" + uri + "' has an empty host in its server list");
      }
      int colon = host.lastIndexOf(':');
      if (colon >= 0 && !host.endsWith("]")) {
        String port = host.substring(colon + 1);
        if (!port.matches("\\d{1,5}")
            || Integer.parseInt(port) < 1
            || Integer.parseInt(port) > 65535) {
          throw new IllegalArgumentException(
              "zookeeper URI '" + uri + "' has a bad port '" + port + "' in host '" + host + "'");
        }
      } else {
        host = host + ":2181";
      }
      if (hosts.length() > 0) {
        hosts.append(',');
      }
      hosts.append(host);
    }
    String basePath = path.isEmpty() || path.equals("/") ? DEFAULT_BASE_PATH : stripSlash(path);
    LockNodes.checkBasePath(basePath);
    // ZooKeeper takes its timeouts as int milliseconds; a session shorter than its tick is refused.
    Duration max = Duration.ofMillis(Integer.MAX_VALUE);
    Duration session =
        uri.durationOption(SESSION_TIMEOUT, DEFAULT_SESSION_TIMEOUT, Duration.ofMillis(1), max);
    Duration connection =
        uri.durationOption(
            CONNECTION_TIMEOUT, DEFAULT_CONNECTION_TIMEOUT, Duration.ofMillis(1), max);
    return new Target(hosts.toString(), basePath, credentials, session, connection);
  }

  private static String stripSlash(String path) {
    return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
