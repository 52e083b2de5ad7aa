package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.redis.fixture.RedisInspector;
import dev.locksmith.redis.internal.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis that evicts, for real: {@code redis-server --maxmemory 3mb --maxmemory-policy
 * allkeys-lru}, the usual setting of a Redis shared with a cache. Tokens must keep rising after the
 * idle counters were evicted, and opening a store on a server that may evict lock keys says so.
 */
class RedisEvictionTest {

  static final String VALUE = "x".repeat(1024);

  final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  <T extends AutoCloseable> T track(T t) {
    resources.add(t);
    return t;
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "on allkeys-lru, a lock at its 50th token hands out a higher one after a flood of other keys"
          + " evicted every idle key of the store")
  void tokenAfterEvictionFlood(String strategy) throws Exception {
    RedisServer redis =
        track(RedisServer.startVolatile("--maxmemory", "3mb", "--maxmemory-policy", "allkeys-lru"));
    LockClient client = track(LockClient.open(redis.uri() + "?strategy=" + strategy));
    assertThat(client.capabilities()).contains(Capability.FENCING);
    long last = 0;
    for (int i = 0; i < 50; i++) {
      Lease l = client.lock("order:42").acquire(Duration.ZERO);
      assertThat(l.fencingToken()).isGreaterThan(last);
      last = l.fencingToken();
      l.release();
    }
    List<String> before = RedisInspector.keys(redis.address(), "locksmith:");
    int rounds = flood(redis, "locksmith:");
    long next = client.lock("order:42").acquire(Duration.ZERO).fencingToken();
    System.out.printf(
        "EVICTION FLOOD %s: token %d before; keys %s evicted after %d rounds of 2,000 x 1 KiB;"
            + " token after: %d%n",
        strategy, last, before, rounds, next);
    assertThat(next).as("token after the counter was evicted").isGreaterThan(last);
  }

  @Test
  @DisplayName(
      "on a cluster whose masters run allkeys-lru, a lock at its 50th token hands out a higher one"
          + " after a flood evicted its slot's counter")
  void tokenAfterEvictionFloodOnCluster() throws Exception {
    RedisCluster cluster =
        track(RedisCluster.start("--maxmemory", "3mb", "--maxmemory-policy", "allkeys-lru"));
    LockClient client = track(LockClient.open(cluster.uri()));
    long last = 0;
    for (int i = 0; i < 50; i++) {
      Lease l = client.lock("order:42").acquire(Duration.ZERO);
      assertThat(l.fencingToken()).isGreaterThan(last);
      last = l.fencingToken();
      l.release();
    }
    RedisInspector inspector = cluster.inspector();
    List<String> before = inspector.sample("locksmith:");
    RedisClusterClient flooder =
        RedisClusterClient.create(
            RedisEndpoint.sharedResources(),
            cluster.masters().stream()
                .map(m -> RedisURI.create("redis://" + m.address()))
                .toList());
    int rounds = 0;
    try (StatefulRedisClusterConnection<String, String> c = flooder.connect(StringCodec.UTF8)) {
      while (inspector.entries("locksmith:") > 0) {
        if (++rounds > 500) {
          throw new AssertionError("500 rounds of 6,000 keys did not evict " + before);
        }
        List<RedisFuture<String>> replies = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
          replies.add(c.async().set("flood:" + rounds + ":" + i, VALUE));
        }
        for (RedisFuture<String> r : replies) {
          r.get(10, TimeUnit.SECONDS);
        }
      }
    } finally {
      flooder.shutdownAsync();
    }
    long next = client.lock("order:42").acquire(Duration.ZERO).fencingToken();
    System.out.printf(
        "EVICTION FLOOD cluster: token %d before; keys %s evicted after %d rounds of 6,000 x 1"
            + " KiB; token after: %d%n",
        last, before, rounds, next);
    assertThat(next).as("token after the counter was evicted").isGreaterThan(last);
  }

  /**
   * Writes other keys of 1 KiB until no key under {@code prefix} is left (allkeys-lru evicts the
   * idle ones); returns how many rounds of 2,000 keys it took.
   */
  static int flood(RedisServer redis, String prefix) throws Exception {
    RedisClient client =
        RedisClient.create(RedisEndpoint.sharedResources(), redis.uri() + "?timeout=10s");
    try (StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8)) {
      for (int round = 1; round <= 500; round++) {
        List<RedisFuture<String>> replies = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
          replies.add(c.async().set("flood:" + round + ":" + i, VALUE));
        }
        for (RedisFuture<String> r : replies) {
          r.get(10, TimeUnit.SECONDS);
        }
        if (RedisInspector.keys(redis.address(), prefix).isEmpty()) {
          return round;
        }
      }
      throw new AssertionError("500 rounds of 2,000 keys did not evict the keys under " + prefix);
    } finally {
      client.shutdownAsync();
    }
  }

  /** What the stores log on standard error while {@code action} runs. */
  static String logged(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    OutputStream both =
        new OutputStream() {
          @Override
          public void write(int b) {
            captured.write(b);
            original.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            captured.write(b, off, len);
            original.write(b, off, len);
          }
        };
    System.setErr(new PrintStream(both, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(strings = {"allkeys-lru", "volatile-lru", "allkeys-lfu", "volatile-ttl"})
  @DisplayName(
      "opening a store on a server whose maxmemory-policy may evict lock keys logs one warning"
          + " naming the policy")
  void warnsOfEvictingPolicy(String policy) {
    RedisServer redis =
        track(RedisServer.startVolatile("--maxmemory", "3mb", "--maxmemory-policy", policy));
    for (String strategy : List.of("script", "watch")) {
      String log =
          logged(
              () -> track(LockClient.open(redis.uri() + "?strategy=" + strategy)).capabilities());
      List<String> warnings =
          log.lines().filter(l -> l.contains("WARN") && l.contains("may evict lock keys")).toList();
      assertThat(warnings).as(strategy + ": " + log).hasSize(1);
      assertThat(warnings.get(0))
          .contains("maxmemory-policy " + policy)
          .contains(redis.address())
          .contains("noeviction");
    }
  }

  @Test
  @DisplayName("on noeviction, the default, opening a store says nothing about eviction")
  void silentOnNoEviction() {
    RedisServer redis = track(RedisServer.startVolatile("--maxmemory", "3mb"));
    String log = logged(() -> track(LockClient.open(redis.uri())).capabilities());
    assertThat(log).doesNotContain("may evict");
  }

  @Test
  @DisplayName(
      "a user the server refuses CONFIG to opens a working store on an evicting server, with no"
          + " warning and no failure")
  void configRefused() throws Exception {
    RedisServer redis =
        track(
            RedisServer.startVolatile(
                "--maxmemory-policy",
                "allkeys-lru",
                "--user",
                "locker",
                "on",
                ">pw",
                "~*",
                "&*",
                "+@all",
                "-config"));
    String uri = "redis://locker:pw@" + redis.address();
    List<LockClient> opened = new ArrayList<>();
    String log = logged(() -> opened.add(track(LockClient.open(uri))));
    assertThat(log).doesNotContain("may evict");
    opened.get(0).lock("configless").acquire(Duration.ZERO).release();
  }
}
