package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.StaleTokenException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link FencedKey} on a real Redis: stale writes refused, equal tokens accepted, exact comparison
 * of large tokens, a holder whose lease expired refused after the next holder wrote, concurrent
 * writers, bad input.
 */
abstract class FencedKeyBehaviour {

  /** Synchronous commands of a connection to the Redis under test. */
  abstract RedisClusterCommands<String, String> redis();

  /** The lock URI of the same Redis, without options. */
  abstract String lockUri();

  /** A short name of the deployment, printed before the messages tests show. */
  abstract String deployment();

  private FencedKey newKey() {
    return new FencedKey(redis(), "fenced:" + UUID.randomUUID());
  }

  @Test
  @DisplayName(
      "A write with a lower token than the stored fence is refused and the newer value stays")
  void staleWriteIsRefused() {
    FencedKey key = newKey();
    key.write(20, "new");
    StaleTokenException e =
        catchThrowableOfType(StaleTokenException.class, () -> key.write(19, "old"));
    assertThat(e.offeredToken()).isEqualTo(19);
    assertThat(e.highestAccepted()).hasValue(20);
    assertThat(e.resource()).contains(key.key());
    assertThat(key.read()).contains(new FencedKey.Stored("new", 20));
    assertThat(redis().hget(key.key(), "value")).isEqualTo("new");
  }

  @Test
  @DisplayName("The same token writes twice; a higher one writes over it; a missing key takes any")
  void equalTokenIsAccepted() {
    FencedKey key = newKey();
    assertThat(key.read()).isEmpty();
    assertThat(key.fence()).isEmpty();
    key.write(0, "zero");
    key.write(7, "first");
    key.write(7, "second");
    assertThat(key.read()).contains(new FencedKey.Stored("second", 7));
    key.write(8, "third");
    assertThat(key.read()).contains(new FencedKey.Stored("third", 8));
  }

  @Test
  @DisplayName("Tokens above 2^53 compare exactly (Lua numbers are doubles)")
  void largeTokensCompareExactly() {
    FencedKey key = newKey();
    long twoTo53 = 1L << 53;
    key.write(twoTo53 + 1, "a");
    assertThatThrownBy(() -> key.write(twoTo53, "b")).isInstanceOf(StaleTokenException.class);
    key.write(Long.MAX_VALUE - 1, "c");
    assertThatThrownBy(() -> key.write(Long.MAX_VALUE - 2, "d"))
        .isInstanceOf(StaleTokenException.class);
    key.write(Long.MAX_VALUE, "e");
    assertThat(key.read()).contains(new FencedKey.Stored("e", Long.MAX_VALUE));
    // 10 digits against 9: length decides before text ("999999999" > "1000000000" as text).
    FencedKey other = newKey();
    other.write(1_000_000_000L, "ten digits");
    assertThatThrownBy(() -> other.write(999_999_999L, "nine digits"))
        .isInstanceOf(StaleTokenException.class);
  }

  @Test
  @DisplayName("Holder A's late write after its lease expired and B wrote is refused")
  void lateWriteOfExpiredHolderIsRefused() {
    FencedKey key = newKey();
    String options = "?leaseTime=1s&autoRenew=false";
    try (LockClient clientA = LockClient.open(lockUri() + options);
        LockClient clientB = LockClient.open(lockUri() + options)) {
      Lease a = clientA.lock("config-10").tryAcquire().orElseThrow();
      long t1 = a.fencingToken();
      key.write(t1, "A: read");

      // A stalls (a GC pause, SIGSTOP): its lease runs out in Redis and B takes over.
      Lease b =
          await()
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(100))
              .until(() -> clientB.lock("config-10").tryAcquire(), Optional::isPresent)
              .orElseThrow();
      long t2 = b.fencingToken();
      assertThat(t2).isGreaterThan(t1);
      key.write(t2, "B: paid");

      // A wakes up, believes it still holds the lock, and writes.
      StaleTokenException refused =
          catchThrowableOfType(StaleTokenException.class, () -> key.write(t1, "A: cancelled"));
      assertThat(refused.offeredToken()).isEqualTo(t1);
      assertThat(refused.highestAccepted()).hasValue(t2);
      System.out.println("[" + deployment() + "] A: t1=" + t1 + ", B: t2=" + t2);
      System.out.println("[" + deployment() + "] " + refused);
      assertThat(key.read()).contains(new FencedKey.Stored("B: paid", t2));
      assertThat(a.isValid()).isFalse();
      b.release();
    }
  }

  @Test
  @DisplayName("Concurrent writers with rising tokens: the key ends with the highest token's value")
  void concurrentWritersEndWithHighestToken() throws Exception {
    FencedKey key = newKey();
    AtomicLong tokens = new AtomicLong();
    AtomicInteger refused = new AtomicInteger();
    int threads = 8;
    int writesEach = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        done.add(
            pool.submit(
                () -> {
                  for (int w = 0; w < writesEach; w++) {
                    long token = tokens.incrementAndGet();
                    try {
                      key.write(token, "t" + token);
                    } catch (StaleTokenException e) {
                      assertThat(e.highestAccepted().orElseThrow()).isGreaterThan(token);
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    long highest = tokens.get();
    assertThat(key.read()).contains(new FencedKey.Stored("t" + highest, highest));
    System.out.println(
        "["
            + deployment()
            + "] "
            + threads * writesEach
            + " concurrent writes, "
            + refused.get()
            + " refused as stale, final fence "
            + highest);
  }

  @Test
  @DisplayName("Bad input fails at once with a message that names it")
  void badInputIsRefused() {
    assertThatThrownBy(() -> new FencedKey(null, "k"))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("redis");
    assertThatThrownBy(() -> new FencedKey(redis(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> new FencedKey(redis(), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must not be empty");
    FencedKey key = newKey();
    assertThatThrownBy(() -> key.write(-1, "v"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token must not be negative");
    assertThatThrownBy(() -> key.write(1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("value");
    assertThat(key.read()).isEmpty();
  }

  @Test
  @DisplayName("A key that holds something else is a store failure, never overwritten")
  void keyOfAnotherTypeIsAStoreFailure() {
    String plain = "fenced:plain:" + UUID.randomUUID();
    redis().set(plain, "not a hash");
    assertThatThrownBy(() -> new FencedKey(redis(), plain).write(1, "v"))
        .isInstanceOf(LockStoreException.class)
        .isNotInstanceOf(StaleTokenException.class)
        .hasMessageContaining("WRONGTYPE");
    String forged = "fenced:forged:" + UUID.randomUUID();
    redis().hset(forged, "fence", "abc");
    assertThatThrownBy(() -> new FencedKey(redis(), forged).write(1, "v"))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("is not a token");
    assertThat(redis().get(plain)).isEqualTo("not a hash");
  }
}
