package dev.locksmith.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.bench.LockTarget.Held;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Redis {@code raw-fenced} bound does the work of Locksmith's store, or its numbers bound
 * nothing: it excludes other owners, counts re-entries, draws tokens that rise across holders from
 * one counter shared by every name (above the server's clock, so a lost counter restarts above
 * them, and above a per-name counter an earlier version left), and keeps no key per name once a
 * lock is released. On a real {@code redis-server} that evicts as a cache does ({@code allkeys-lru}
 * in 3 MB), a fresh one per test; two targets stand for two processes.
 */
class RedisRawFencedTest {

  private ServerProcess server;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisCommands<String, String> redis;
  private String hostPort;

  @BeforeEach
  void startServer() {
    // The usual setting of a Redis shared with a cache: the idle counter is evicted under pressure.
    server = RedisServer.startVolatile("--maxmemory", "3mb", "--maxmemory-policy", "allkeys-lru");
    hostPort = "127.0.0.1:" + server.port();
    client = RedisClient.create(RedisURI.create("redis://" + hostPort));
    connection = client.connect();
    redis = connection.sync();
  }

  @AfterEach
  void stopServer() {
    connection.close();
    client.shutdown();
    server.close();
  }

  @Test
  @DisplayName(
      "redis/raw-fenced excludes another owner, re-enters with the same token, and gives a new"
          + " owner a greater one")
  void keepsLocksmithsPromises() throws Exception {
    try (RedisTargets.RawFenced a = new RedisTargets.RawFenced(hostPort);
        RedisTargets.RawFenced b = new RedisTargets.RawFenced(hostPort)) {
      String ownerA = a.ownerOfNextHold();
      String ownerB = b.ownerOfNextHold();
      Held first = a.tryOnce("promises", ownerA);
      assertThat(first).isNotNull();
      long token = token("promises");
      assertThat(b.tryOnce("promises", ownerB)).as("another owner while held").isNull();
      assertThat(a.tryOnce("promises", a.ownerOfNextHold()))
          .as("the same target's next hold, another owner, while held")
          .isNull();

      Held nested = a.tryOnce("promises", ownerA);
      assertThat(nested).isNotNull();
      assertThat(token("promises")).as("re-entry keeps the token").isEqualTo(token);
      assertThat(redis.hget(RedisTargets.RawFenced.holdKey("promises"), ownerA)).isEqualTo("2");
      nested.release();
      assertThat(b.tryOnce("promises", ownerB)).as("one hold is left").isNull();
      first.release();
      assertThatThrownBy(first::release).hasMessageContaining("was not held");

      Held other = b.tryOnce("promises", ownerB);
      assertThat(other).isNotNull();
      assertThat(token("promises")).as("a new owner, a greater token").isGreaterThan(token);
      other.release();
    }
  }

  @Test
  @DisplayName(
      "redis/raw-fenced tokens rise across holders, and a released lock leaves only the shared"
          + " counter")
  void tokensRiseAndNothingStays() throws Exception {
    try (RedisTargets.RawFenced a = new RedisTargets.RawFenced(hostPort);
        RedisTargets.RawFenced b = new RedisTargets.RawFenced(hostPort)) {
      long before = serverMicros();
      long last = 0;
      for (int i = 0; i < 20; i++) {
        Held held = (i % 2 == 0 ? a : b).acquire("rising");
        long token = token("rising");
        assertThat(token).as("hold " + i).isGreaterThan(last).isGreaterThanOrEqualTo(before);
        last = token;
        held.release();
        assertThat(keys()).as("after release " + i).containsExactly(RedisTargets.RawFenced.TOKENS);
      }
      assertThat(Long.parseLong(redis.get(RedisTargets.RawFenced.TOKENS)))
          .as("the shared counter holds the last token")
          .isEqualTo(last);

      for (int i = 0; i < 200; i++) {
        (i % 2 == 0 ? a : b).acquire("name-" + i).release();
      }
      assertThat(keys())
          .as("keys after 200 names were acquired and released")
          .containsExactly(RedisTargets.RawFenced.TOKENS);
    }
  }

  @Test
  @DisplayName(
      "redis/raw-fenced hands out a greater token after a flood of other keys evicted the shared"
          + " counter (allkeys-lru)")
  void tokensSurviveEviction() throws Exception {
    try (RedisTargets.RawFenced a = new RedisTargets.RawFenced(hostPort)) {
      long last = 0;
      for (int i = 0; i < 50; i++) {
        Held held = a.acquire("order:42");
        last = token("order:42");
        held.release();
      }
      int rounds = floodUntilEvicted(RedisTargets.RawFenced.TOKENS);
      long evicted = serverMicros();
      Held next = a.acquire("order:42");
      assertThat(token("order:42"))
          .as("the token after %d rounds of 2,000 keys evicted the counter", rounds)
          .isGreaterThan(last)
          .isGreaterThanOrEqualTo(evicted);
      next.release();
      assertThat(keys()).as("keys once released").containsExactly(RedisTargets.RawFenced.TOKENS);
    }
  }

  @Test
  @DisplayName(
      "redis/raw-fenced draws above a per-name counter an earlier version left, and keeps it in"
          + " step")
  void honoursLegacyCounter() throws Exception {
    try (RedisTargets.RawFenced a = new RedisTargets.RawFenced(hostPort)) {
      // An earlier version's counter, ahead of the clock by 1,000 s.
      long legacy = serverMicros() + 1_000_000_000L;
      String legacyKey = RedisTargets.RawFenced.legacyFenceKey("upgraded");
      redis.set(legacyKey, Long.toString(legacy));
      Held held = a.acquire("upgraded");
      assertThat(token("upgraded")).isEqualTo(legacy + 1);
      assertThat(redis.get(legacyKey)).isEqualTo(Long.toString(legacy + 1));
      assertThat(redis.get(RedisTargets.RawFenced.TOKENS)).isEqualTo(Long.toString(legacy + 1));
      held.release();

      Held next = a.acquire("another");
      assertThat(token("another")).as("other names draw above it too").isEqualTo(legacy + 2);
      next.release();
    }
  }

  /**
   * Writes other keys of 1 KiB, in rounds of 2,000, until {@code key} is gone (allkeys-lru evicts
   * the idle keys first); returns how many rounds it took.
   */
  private int floodUntilEvicted(String key) throws Exception {
    String value = "x".repeat(1024);
    RedisAsyncCommands<String, String> async = connection.async();
    for (int round = 1; round <= 500; round++) {
      List<RedisFuture<String>> replies = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        replies.add(async.set("flood:" + round + ":" + i, value));
      }
      for (RedisFuture<String> reply : replies) {
        reply.get(10, TimeUnit.SECONDS);
      }
      if (redis.exists(key) == 0) {
        return round;
      }
    }
    throw new AssertionError("500 rounds of 2,000 keys of 1 KiB did not evict " + key);
  }

  /** The token of the live hold of {@code name}. */
  private long token(String name) {
    String token = redis.hget(RedisTargets.RawFenced.holdKey(name), "token");
    assertThat(token).as("token of " + name).isNotNull();
    return Long.parseLong(token);
  }

  /** Every key of the target's layout. */
  private List<String> keys() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(redis, ScanArgs.Builder.matches("raw-fenced:*")).forEachRemaining(keys::add);
    return keys;
  }

  /** The server's clock in microseconds. */
  private long serverMicros() {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
  }
}
