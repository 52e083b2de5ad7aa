package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

  @Test
  @DisplayName("a failed open logs nothing afterwards, even with no other Redis client alive")
  void failedOpenIsQuietAfterwards() throws Exception {
    // In a JVM of its own: another client alive in this one would keep Lettuce's event loops up
    // and hide the fault (the last client's shutdown stopped them before the handshake timer,
    // which then logged an ERROR with a stack trace into a stopped loop, once per failed open).
    int port = RedisServer.freePort();
    Process child =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElse("java"),
                "-cp",
                System.getProperty("java.class.path"),
                FailedOpen.class.getName(),
                "redis://127.0.0.1:" + port)
            .redirectErrorStream(true)
            .start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
    assertThat(child.exitValue()).as(output).isZero();
    assertThat(output).contains("refused").doesNotContain("ERROR").doesNotContain("\tat ");
  }

  /** Opens a store that cannot be reached, then lives on past Lettuce's handshake timer. */
  static final class FailedOpen {
    public static void main(String[] args) throws InterruptedException {
      try {
        LockClient.open(args[0]).close();
        throw new AssertionError("opened " + args[0]);
      } catch (LockStoreException expected) {
        System.out.println("open failed: " + expected.getMessage());
      }
      Thread.sleep(3_000); // three times the 1 s handshake timeout of RedisEndpoint
    }
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
