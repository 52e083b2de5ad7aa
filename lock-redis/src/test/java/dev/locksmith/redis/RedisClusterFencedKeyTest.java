package dev.locksmith.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link FencedKey} on a real three-master Redis Cluster; each test's keys are random, so they fall
 * on all three masters, and the script runs on the one that owns the key's slot.
 */
class RedisClusterFencedKeyTest extends FencedKeyBehaviour {

  private static RedisCluster cluster;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> connection;

  @BeforeAll
  static void start() {
    cluster = RedisCluster.start();
    String seed = cluster.uri().substring("redis-cluster://".length()).split(",")[0];
    RedisURI uri = RedisURI.create("redis://" + seed);
    uri.setTimeout(Duration.ofSeconds(5));
    client = RedisClusterClient.create(List.of(uri));
    connection = client.connect();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.shutdown();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  RedisClusterCommands<String, String> redis() {
    return connection.sync();
  }

  @Override
  String lockUri() {
    return cluster.uri();
  }

  @Override
  String deployment() {
    return "redis-cluster";
  }
}
