package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.LockStoreException;
import dev.locksmith.StaleTokenException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link FencedKey} when Redis goes away: an exception, never a silent success. */
class RedisFencedKeyOutageTest {

  @Test
  @DisplayName("A write to a killed Redis fails as a store failure; the fence survives a restart")
  void outageIsAStoreFailureNotARefusalOrASuccess() {
    try (RedisServer server = RedisServer.startPersistent()) {
      RedisURI uri = RedisURI.create(server.uri());
      uri.setTimeout(Duration.ofSeconds(2));
      RedisClient client = RedisClient.create(uri);
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        FencedKey key = new FencedKey(connection.sync(), "orders:1");
        key.write(10, "paid");

        server.kill();
        assertThatThrownBy(() -> key.write(11, "shipped"))
            .isInstanceOf(LockStoreException.class)
            .isNotInstanceOf(StaleTokenException.class)
            .hasMessageContaining("may or may not have been applied");
        assertThatThrownBy(key::read).isInstanceOf(LockStoreException.class);

        // With append-only persistence the fence survives; the script itself is forgotten
        // (EVALSHA meets NOSCRIPT and the script is sent again).
        server.restart();
        await()
            .atMost(Duration.ofSeconds(20))
            .ignoreException(LockStoreException.class)
            .until(() -> key.fence().orElse(-1) == 10);
        assertThatThrownBy(() -> key.write(9, "late")).isInstanceOf(StaleTokenException.class);
        key.write(11, "shipped");
        assertThat(key.read()).contains(new FencedKey.Stored("shipped", 11));
      } finally {
        client.shutdown();
      }
    }
  }
}
