package dev.locksmith.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.DistributedLock;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spring.StartupMode;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The client a lenient startup leaves when the store is down, on a real redis-server's port with
 * nothing listening: what it does before the store answers, and that closing it stops the attempts
 * to connect (the application stopped before the store came back).
 */
class DeferredLockClientTest {

  private ServerProcess redis;
  private LockClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private DeferredLockClient openDown(AtomicInteger attempts) {
    redis = RedisServer.startVolatile();
    redis.kill();
    String uri = RedisServer.uri(redis) + "?timeout=500ms";
    client =
        ClientStartup.open(
            "locksmith.uri '" + uri + "'",
            () -> {
              attempts.incrementAndGet();
              return LockClient.open(uri);
            },
            StartupMode.LENIENT,
            LockOptions.defaults(),
            new StoreOutage(RedisServer.uri(redis)));
    assertThat(client).isInstanceOf(DeferredLockClient.class);
    return (DeferredLockClient) client;
  }

  @Test
  @DisplayName("strict: an unreachable store is a StartupFailure naming it and the cause")
  void strictFails() {
    redis = RedisServer.startVolatile();
    redis.kill();
    String uri = RedisServer.uri(redis);
    assertThatThrownBy(
            () ->
                ClientStartup.open(
                    "locksmith.uri '" + uri + "'",
                    () -> LockClient.open(uri),
                    StartupMode.STRICT,
                    LockOptions.defaults(),
                    new StoreOutage(uri)))
        .isInstanceOf(StartupFailure.class)
        .hasMessageStartingWith("locksmith.uri '" + uri + "': the lock store cannot be reached: ")
        .hasMessageContaining("Connection refused")
        .hasCauseInstanceOf(LockStoreException.class);
  }

  @Test
  @DisplayName("before the store answers: locks are named and checked, their use fails at once")
  void beforeTheStoreAnswers() {
    DeferredLockClient deferred = openDown(new AtomicInteger());
    assertThat(deferred.isOpen()).isFalse();
    DistributedLock lock = client.lock("a").withAutoRenew(false).withOwner("me");
    assertThat(lock.name()).isEqualTo("a");
    assertThatThrownBy(lock::isLocked).isInstanceOf(LockStoreException.class);
    assertThatThrownBy(lock::asLock).isInstanceOf(LockStoreException.class);
    assertThatThrownBy(() -> client.lockAll("a", "b")).isInstanceOf(LockStoreException.class);
    assertThatThrownBy(() -> client.lock(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> client.lock("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name");
    assertThatThrownBy(() -> lock.withOwner(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("owner");
    assertThat(client.options()).isEqualTo(LockOptions.defaults());
    assertThat(client).hasToString("LockClient{" + RedisServer.uri(redis) + ", not connected yet}");
  }

  @Test
  @DisplayName("closed before the store answers: no more attempts, and calls say it is closed")
  void closeStopsTheAttempts() {
    AtomicInteger attempts = new AtomicInteger();
    DeferredLockClient deferred = openDown(attempts);
    await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() >= 2); // one retry at least
    client.close();
    await().atMost(Duration.ofSeconds(10)).until(deferred.retries::isTerminated);
    int after = attempts.get();
    redis.restart();
    assertThat(deferred.isOpen()).isFalse();
    assertThat(attempts).hasValue(after);
    assertThatThrownBy(() -> client.lock("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    client.close(); // twice is fine
  }
}
