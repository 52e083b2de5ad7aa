package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keys written by the earlier version, whose tokens came from a counter per name ({@code
 * P{name}:fence}, {@code P{name}:rw:fence}, {@code INCR}ed by every fresh acquire): upgraded
 * clients draw above those counters and keep them in step, so tokens never go back, also while
 * clients of the earlier version still run beside them (a rolling upgrade). Names the earlier
 * version never used get no such counter.
 */
class RedisUpgradeTest {

  /** The earlier version's exclusive acquire script, as it ran on servers before the upgrade. */
  static final String EARLIER_ACQUIRE =
      String.join(
          "\n",
          "if redis.call('EXISTS', KEYS[1]) == 0 then",
          "  local t = redis.call('INCR', KEYS[2])",
          "  redis.call('HSET', KEYS[1], ARGV[1], 1, 'token', t)",
          "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
          "  return t",
          "end",
          "return -1");

  /** The earlier version's release: owner-checked delete of the last hold. */
  static final String EARLIER_RELEASE =
      "if redis.call('HGET', KEYS[1], ARGV[1]) then redis.call('DEL', KEYS[1]) end return 0";

  static RedisServer redis;
  final List<LockClient> clients = new ArrayList<>();

  @BeforeAll
  static void start() {
    redis = RedisServer.startPersistent();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @AfterEach
  void closeClients() {
    clients.forEach(LockClient::close);
    clients.clear();
  }

  LockClient client(String strategy) {
    LockClient c = LockClient.open(redis.uri() + "?strategy=" + strategy);
    clients.add(c);
    return c;
  }

  static String unique(String base) {
    return base + "-" + System.nanoTime();
  }

  static long serverMicros() {
    String[] time = redis.cli("TIME").split("\\s+");
    return Long.parseLong(time[0]) * 1_000_000 + Long.parseLong(time[1]);
  }

  /** One acquire and release by a client of the earlier version; returns its token. */
  static long earlierClientLocks(String name, String keyName) {
    String hold = "locksmith:{" + keyName + "}:lock";
    String fence = "locksmith:{" + keyName + "}:fence";
    long token =
        Long.parseLong(
            redis.cli("EVAL", EARLIER_ACQUIRE, "2", hold, fence, "o:earlier", "30000").strip());
    assertThat(token).as("the earlier client got " + name).isPositive();
    redis.cli("EVAL", EARLIER_RELEASE, "1", hold, "o:earlier");
    return token;
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "a name whose counter from the earlier version stands at 50 gets a higher token, and the"
          + " counter is kept at the token handed out")
  void legacyCounterAt50(String strategy) throws Exception {
    String name = unique("order");
    String fence = "locksmith:{" + name + "}:fence";
    redis.cli("SET", fence, "50");
    Lease lease = client(strategy).lock(name).acquire(Duration.ZERO);
    assertThat(lease.fencingToken()).isGreaterThan(50);
    assertThat(redis.cli("GET", fence)).isEqualTo(Long.toString(lease.fencingToken()));
    lease.release();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "a legacy counter far above the server's clock is absorbed: the next token lies above it")
  void legacyCounterAboveTheClock(String strategy) throws Exception {
    String name = unique("ahead");
    long ahead = serverMicros() * 2;
    redis.cli("SET", "locksmith:{" + name + "}:fence", Long.toString(ahead));
    redis.cli("SET", "locksmith:{" + name + "}:rw:fence", Long.toString(ahead + 7));
    LockClient client = client(strategy);
    Lease lease = client.lock(name).acquire(Duration.ZERO);
    assertThat(lease.fencingToken()).isGreaterThan(ahead);
    lease.release();
    Lease write = client.readWriteLock(name).writeLock().acquire(Duration.ZERO);
    assertThat(write.fencingToken()).isGreaterThan(ahead + 7);
    write.release();
    Lease read = client.readWriteLock(name).readLock().acquire(Duration.ZERO);
    assertThat(read.fencingToken()).isGreaterThanOrEqualTo(write.fencingToken());
    read.release();
    Lease next = client.readWriteLock(name).writeLock().acquire(Duration.ZERO);
    assertThat(next.fencingToken()).isGreaterThan(read.fencingToken());
    next.release();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "in a rolling upgrade, clients of the earlier version and of this one take turns on a name"
          + " the earlier version used, and its tokens only rise")
  void rollingUpgrade(String strategy) throws Exception {
    String name = unique("rolling");
    long last = 0;
    for (int i = 0; i < 3; i++) {
      long t = earlierClientLocks(name, name);
      assertThat(t).isGreaterThan(last);
      last = t;
    }
    LockClient upgraded = client(strategy);
    for (int round = 0; round < 5; round++) {
      Lease lease = upgraded.lock(name).acquire(Duration.ZERO);
      assertThat(lease.fencingToken()).as("upgraded, round " + round).isGreaterThan(last);
      last = lease.fencingToken();
      lease.release();
      long earlier = earlierClientLocks(name, name);
      assertThat(earlier).as("earlier version, round " + round).isGreaterThan(last);
      last = earlier;
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName(
      "a writer of the earlier version still counts above the tokens upgraded writers and readers"
          + " handed out")
  void rollingUpgradeReadWrite(String strategy) throws Exception {
    String name = unique("rw");
    String rwFence = "locksmith:{" + name + "}:rw:fence";
    redis.cli("SET", rwFence, "70");
    LockClient upgraded = client(strategy);
    Lease write = upgraded.readWriteLock(name).writeLock().acquire(Duration.ZERO);
    assertThat(write.fencingToken()).isGreaterThan(70);
    write.release();
    Lease read = upgraded.readWriteLock(name).readLock().acquire(Duration.ZERO);
    assertThat(read.fencingToken()).isGreaterThanOrEqualTo(write.fencingToken());
    read.release();
    // The earlier version's writer: INCR of its per-name counter.
    long earlier = Long.parseLong(redis.cli("INCR", rwFence).strip());
    assertThat(earlier).isGreaterThan(read.fencingToken());
    Lease next = upgraded.readWriteLock(name).writeLock().acquire(Duration.ZERO);
    assertThat(next.fencingToken()).isGreaterThan(earlier);
    next.release();
  }

  @ParameterizedTest
  @ValueSource(strings = {"script", "watch"})
  @DisplayName("a name only this version locked gets no counter of its own, in any mode")
  void noCounterPerName(String strategy) throws Exception {
    String name = unique("fresh");
    LockClient client = client(strategy);
    client.lock(name).acquire(Duration.ZERO).release();
    client.readWriteLock(name).writeLock().acquire(Duration.ZERO).release();
    client.readWriteLock(name).readLock().acquire(Duration.ZERO).release();
    assertThat(redis.cli("EXISTS", "locksmith:{" + name + "}:fence")).isEqualTo("0");
    assertThat(redis.cli("EXISTS", "locksmith:{" + name + "}:rw:fence")).isEqualTo("0");
    assertThat(redis.cli("--scan", "--pattern", "locksmith:{" + name + "}*")).isEmpty();
  }
}
