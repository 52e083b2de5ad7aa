package dev.locksmith.spring.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;

/**
 * The Redis server Spring Data Redis is configured for, on Spring Boot 3.5: its {@code
 * RedisConnectionDetails} (from {@code spring-boot-autoconfigure}) as a Locksmith URI.
 */
public final class SpringDataRedisServer {

  private SpringDataRedisServer() {}

  /**
   * The URI of the application's Spring Data Redis server, or {@code null} if it has none.
   *
   * @throws IllegalArgumentException if the server is reached through an SSL bundle, which
   *     Locksmith's URIs cannot name
   */
  public static @Nullable String uri(BeanFactory beans) {
    RedisConnectionDetails details =
        beans.getBeanProvider(RedisConnectionDetails.class).getIfAvailable();
    if (details == null) {
      return null;
    }
    String user = details.getUsername();
    String password = details.getPassword();
    RedisConnectionDetails.Cluster cluster = details.getCluster();
    if (cluster != null) {
      return SpringDataRedisUri.cluster(user, password, nodes(cluster.getNodes()));
    }
    RedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      return SpringDataRedisUri.sentinel(
          user, password, nodes(sentinel.getNodes()), sentinel.getDatabase(), sentinel.getMaster());
    }
    RedisConnectionDetails.Standalone standalone = details.getStandalone();
    if (standalone.getSslBundle() != null) {
      throw new IllegalArgumentException(SpringDataRedisUri.NO_SSL_BUNDLES);
    }
    return SpringDataRedisUri.standalone(
        user, password, standalone.getHost(), standalone.getPort(), standalone.getDatabase());
  }

  private static List<String> nodes(List<RedisConnectionDetails.Node> nodes) {
    return nodes.stream().map(n -> n.host() + ":" + n.port()).toList();
  }
}
