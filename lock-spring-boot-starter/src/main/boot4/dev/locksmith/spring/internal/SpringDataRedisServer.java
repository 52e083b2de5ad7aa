package dev.locksmith.spring.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.util.ClassUtils;

/**
 * The Redis server Spring Data Redis is configured for, on Spring Boot 4: its {@code
 * DataRedisConnectionDetails} (from {@code spring-boot-data-redis}) as a Locksmith URI.
 */
public final class SpringDataRedisServer {

  private static final String DETAILS =
      "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

  private SpringDataRedisServer() {}

  /**
   * The URI of the application's Spring Data Redis server, or {@code null} if it has none.
   *
   * @throws IllegalArgumentException if the server is reached through an SSL bundle, or is a static
   *     master/replica set, which Locksmith's URIs cannot name
   */
  public static @Nullable String uri(BeanFactory beans) {
    // spring-boot-data-redis is optional: the type is named only once it is known to be there.
    if (!ClassUtils.isPresent(DETAILS, SpringDataRedisServer.class.getClassLoader())) {
      return null;
    }
    return Present.uri(beans);
  }

  private static final class Present {
    static @Nullable String uri(BeanFactory beans) {
      DataRedisConnectionDetails details =
          beans.getBeanProvider(DataRedisConnectionDetails.class).getIfAvailable();
      if (details == null) {
        return null;
      }
      if (details.getSslBundle() != null) {
        throw new IllegalArgumentException(SpringDataRedisUri.NO_SSL_BUNDLES);
      }
      String user = details.getUsername();
      String password = details.getPassword();
      DataRedisConnectionDetails.Cluster cluster = details.getCluster();
      if (cluster != null) {
        return SpringDataRedisUri.cluster(user, password, nodes(cluster.getNodes()));
      }
      DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
      if (sentinel != null) {
        return SpringDataRedisUri.sentinel(
            user,
            password,
            nodes(sentinel.getNodes()),
            sentinel.getDatabase(),
            sentinel.getMaster());
      }
      if (details.getMasterReplica() != null) {
        throw new IllegalArgumentException(
            "locksmith.uri=spring-data-redis does not take a static master/replica set"
                + " (spring.data.redis.masterreplica.*); give locksmith.uri=redis://master:port");
      }
      DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
      return SpringDataRedisUri.standalone(
          user, password, standalone.getHost(), standalone.getPort(), standalone.getDatabase());
    }

    private static List<String> nodes(List<DataRedisConnectionDetails.Node> nodes) {
      return nodes.stream().map(n -> n.host() + ":" + n.port()).toList();
    }
  }
}
