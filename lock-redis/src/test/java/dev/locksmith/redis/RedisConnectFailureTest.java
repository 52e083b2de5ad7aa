package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a client is told when it cannot open a Redis store: the top message names the real reason
 * (the server's own error code), not "unable to connect", and a malformed URI is refused before any
 * network traffic.
 */
class RedisConnectFailureTest {

  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private <T extends AutoCloseable> T track(T t) {
    resources.add(t);
    return t;
  }

  @Test
  @DisplayName("a wrong password is reported as WRONGPASS, without the password")
  void wrongPassword() {
    RedisServer redis =
        track(RedisServer.startVolatile("--user", "locker", "on", ">right", "~*", "&*", "+@all"));
    assertThatThrownBy(() -> LockClient.open("redis://locker:bad-s3cret@127.0.0.1:" + redis.port()))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("WRONGPASS")
        .hasMessageContaining("wrong user name or password")
        .hasMessageNotContaining("bad-s3cret")
        .hasMessageNotContaining("Unable to connect");
  }

  @Test
  @DisplayName("a missing password is reported as NOAUTH")
  void missingPassword() {
    RedisServer redis = track(RedisServer.startVolatile("--requirepass", "s3cret"));
    assertThatThrownBy(() -> LockClient.open(redis.uri()))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("NOAUTH")
        .hasMessageContaining("requires a password")
        .hasMessageNotContaining("Unable to connect");
  }

  @Test
  @DisplayName("a user without a permission the connection needs is reported as NOPERM")
  void missingPermission() {
    RedisServer redis =
        track(
            RedisServer.startVolatile(
                "--user", "locker", "on", ">s3cret", "~*", "&*", "+@all", "-select"));
    assertThatThrownBy(
            () -> LockClient.open("redis://locker:s3cret@127.0.0.1:" + redis.port() + "/1"))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("NOPERM")
        .hasMessageContaining("permission")
        .hasMessageNotContaining("Unable to connect");
  }

  @Test
  @DisplayName("a database index the server does not have is reported as out of range")
  void databaseOutOfRange() {
    RedisServer redis = track(RedisServer.startVolatile("--databases", "4"));
    assertThatThrownBy(() -> LockClient.open(redis.uri() + "/9"))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("database 9")
        .hasMessageContaining("out of range")
        .hasMessageNotContaining("Unable to connect");
  }

  @Test
  @DisplayName("a server that is not there is reported with the connection's own failure")
  void nothingListening() {
    int port = RedisServer.freePort();
    assertThatThrownBy(() -> LockClient.open("redis://127.0.0.1:" + port))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageContaining("refused");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "redis://127.0.0.1:notaport",
        "redis://127.0.0.1:0",
        "redis://127.0.0.1:70000",
        "redis://",
        "redis://::1",
        "rediss://bad host:6379",
        "redis-sentinel://h1:1,,h2:2#m",
        "redis-cluster://127.0.0.1:x,127.0.0.1:2",
        "redlock://127.0.0.1:1,127.0.0.1:notaport,127.0.0.1:3",
        "redis://127.0.0.1:6379/notadb",
        "redis://127.0.0.1:6379/-1"
      })
  @DisplayName("a malformed URI is IllegalArgumentException at open, without network traffic")
  void malformed(String uri) {
    // IllegalArgumentException comes from parsing alone: a connection attempt (or the DNS lookup
    // of a host such as "127.0.0.1:notaport") ends in LockStoreException instead.
    assertThatThrownBy(() -> LockClient.open(uri)).isInstanceOf(IllegalArgumentException.class);
  }
}
