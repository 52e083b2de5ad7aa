package dev.locksmith.spring.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;

/**
 * The Locksmith URI of the Redis server Spring Data Redis is configured for ({@code
 * locksmith.uri=spring-data-redis}), and the redaction of URIs for messages and health details.
 */
public final class SpringDataRedisUri {

  private SpringDataRedisUri() {}

  /**
   * {@code redis://…}, {@code redis-sentinel://…} or {@code redis-cluster://…} for {@code details}.
   *
   * @throws IllegalArgumentException if it uses an SSL bundle (give {@code rediss://} instead)
   */
  public static String of(RedisConnectionDetails details) {
    String auth = auth(details.getUsername(), details.getPassword());
    RedisConnectionDetails.Cluster cluster = details.getCluster();
    if (cluster != null) {
      return "redis-cluster://" + auth + nodes(cluster.getNodes());
    }
    RedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      return "redis-sentinel://"
          + auth
          + nodes(sentinel.getNodes())
          + "/"
          + sentinel.getDatabase()
          + "#"
          + sentinel.getMaster();
    }
    RedisConnectionDetails.Standalone standalone = details.getStandalone();
    if (standalone.getSslBundle() != null) {
      throw new IllegalArgumentException(
          "locksmith.uri=spring-data-redis does not take Spring's SSL bundles; give"
              + " locksmith.uri=rediss://host:port instead");
    }
    return "redis://"
        + auth
        + standalone.getHost()
        + ":"
        + standalone.getPort()
        + "/"
        + standalone.getDatabase();
  }

  /** {@code uri} without user info, query or {@code ;options}, which may hold passwords. */
  public static String redact(String uri) {
    String s = uri;
    for (char end : new char[] {'?', ';'}) {
      int i = s.indexOf(end);
      if (i >= 0) {
        s = s.substring(0, i);
      }
    }
    int scheme = s.indexOf("://");
    int at = s.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      s = s.substring(0, scheme + 3) + s.substring(at + 1);
    }
    return s;
  }

  private static String auth(@Nullable String user, @Nullable String password) {
    if (password == null) {
      return "";
    }
    return (user != null ? encode(user) : "") + ":" + encode(password) + "@";
  }

  private static String nodes(List<RedisConnectionDetails.Node> nodes) {
    return nodes.stream().map(n -> n.host() + ":" + n.port()).collect(Collectors.joining(","));
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
