package dev.locksmith.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link FencedKey} on one real {@code redis-server}. */
class RedisFencedKeyTest extends FencedKeyBehaviour {

  private static RedisServer server;
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void start() {
    server = RedisServer.startVolatile();
    RedisURI uri = RedisURI.create(server.uri());
    uri.setTimeout(Duration.ofSeconds(5));
    client = RedisClient.create(uri);
    connection = client.connect();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.shutdown();
    }
    if (server != null) {
      server.close();
    }
  }

  @Override
  RedisClusterCommands<String, String> redis() {
    return connection.sync();
  }

  @Override
  String lockUri() {
    return server.uri();
  }

  @Override
  String deployment() {
    return "redis";
  }
}
