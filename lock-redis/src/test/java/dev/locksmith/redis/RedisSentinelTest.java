package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The store through Sentinel: a real master and a real {@code redis-server --sentinel}. */
class RedisSentinelTest {

  static RedisServer master;
  static Process sentinel;
  static int sentinelPort;

  @BeforeAll
  static void start() throws Exception {
    master = RedisServer.startPersistent();
    sentinelPort = RedisServer.freePort();
    Path dir = Files.createTempDirectory("sentinel-");
    Path conf = dir.resolve("sentinel.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "port " + sentinelPort,
            "bind 127.0.0.1",
            "dir " + dir,
            "sentinel monitor mymaster 127.0.0.1 " + master.port() + " 1",
            "sentinel down-after-milliseconds mymaster 5000",
            ""));
    sentinel =
        new ProcessBuilder(RedisServer.binary(), conf.toString(), "--sentinel")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("sentinel.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () -> {
              Process p =
                  new ProcessBuilder(
                          "redis-cli",
                          "-p",
                          Integer.toString(sentinelPort),
                          "SENTINEL",
                          "get-master-addr-by-name",
                          "mymaster")
                      .redirectErrorStream(true)
                      .start();
              String out = new String(p.getInputStream().readAllBytes());
              p.waitFor(5, TimeUnit.SECONDS);
              return out.contains(Integer.toString(master.port()));
            });
  }

  @AfterAll
  static void stop() throws Exception {
    if (sentinel != null) {
      sentinel.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    master.close();
  }

  @Test
  @DisplayName("a redis-sentinel:// URI finds the master and locks on it, without durable fencing")
  void locksThroughSentinel() throws Exception {
    String uri = "redis-sentinel://127.0.0.1:" + sentinelPort + "#mymaster";
    try (LockClient a = LockClient.open(uri);
        LockClient b = LockClient.open(uri)) {
      assertThat(a.capabilities())
          .contains(Capability.FENCING, Capability.WAKE_ON_RELEASE)
          .doesNotContain(Capability.DURABLE_FENCING);
      Lease l = a.lock("sentinel").acquire(Duration.ZERO);
      assertThat(b.lock("sentinel").tryAcquire()).isEmpty();
      assertThat(master.cli("EXISTS", "locksmith:{sentinel}:lock")).isEqualTo("1");
      l.release();
      assertThat(b.lock("sentinel").tryAcquire()).isPresent();
    }
  }
}
