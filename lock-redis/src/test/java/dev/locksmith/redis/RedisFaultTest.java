package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.tck.fixture.ClientCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Faults with real processes: crashed holders, a paused, killed and restarted server, ACLs. */
class RedisFaultTest {

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

  @Test
  @DisplayName("a holder that crashed without releasing frees the lock after its lease")
  void crashedHolderFreesAfterLease() throws Exception {
    RedisServer redis = track(RedisServer.startVolatile());
    LockClient holder = LockClient.open(redis.uri());
    LockClient other = track(LockClient.open(redis.uri()));
    holder.lock("job").withLeaseTime(Duration.ofMillis(800)).acquire(Duration.ZERO);
    long crashed = System.nanoTime();
    ClientCrash.crash(holder);
    assertThat(other.lock("job").tryAcquire()).isEmpty();
    Lease next = other.lock("job").acquire(Duration.ofSeconds(5));
    long after = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashed);
    assertThat(after).isBetween(400L, 2800L);
    next.release();
  }

  @Test
  @DisplayName(
      "a command to a paused server fails after the URI's timeout, also one shorter than the"
          + " 1 s that bounds the connection handshake")
  void commandTimeoutShorterThanHandshake() throws Exception {
    RedisServer redis = track(RedisServer.startVolatile());
    LockClient client = track(LockClient.open(redis.uri() + "?timeout=100ms"));
    client.lock("warm").tryAcquire().orElseThrow().release(); // Connected.
    redis.pause();
    long fastest = Long.MAX_VALUE;
    try {
      // The fastest of three, so that one scheduling stall of a busy machine does not count.
      for (int i = 0; i < 3; i++) {
        DistributedLock lock = client.lock("paused-" + i);
        long start = System.nanoTime();
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockStoreException.class);
        fastest = Math.min(fastest, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      }
    } finally {
      redis.resume();
    }
    assertThat(fastest).as("ms until a command to the paused server failed").isLessThan(800L);
  }

  @Test
  @DisplayName("a server paused past the lease: renewal fails, onLost fires, no double grant after")
  void pausedServerLosesLeaseWithoutDoubleGrant() throws Exception {
    RedisServer redis = track(RedisServer.startVolatile());
    LockClient holder = track(LockClient.open(redis.uri() + "?timeout=200ms"));
    LockClient other = track(LockClient.open(redis.uri()));
    Lease lease =
        holder.lock("paused").withLeaseTime(Duration.ofMillis(600)).acquire(Duration.ZERO);
    CountDownLatch lost = new CountDownLatch(1);
    lease.onLost((l, why) -> lost.countDown());
    redis.pause();
    try {
      assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(lease.isValid()).isFalse();
      Thread.sleep(700); // the server's clock runs on while it is stopped
    } finally {
      redis.resume();
    }
    Lease next = other.lock("paused").acquire(Duration.ofSeconds(5));
    // The old holder's queued renewals ran after SIGCONT and must not have revived its hold.
    assertThat(holder.lock("paused").tryAcquire()).isEmpty();
    assertThat(next.isValid()).isTrue();
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    next.release();
  }

  @Test
  @DisplayName(
      "a killed server makes acquire fail with LockStoreException; the same client works after restart")
  void killedServerFailsThenRecovers() throws Exception {
    RedisServer redis = track(RedisServer.startPersistent());
    LockClient client = track(LockClient.open(redis.uri()));
    long before = client.lock("k").acquire(Duration.ZERO).fencingToken();
    client.lock("k").tryAcquire().ifPresent(Lease::release);
    redis.kill();
    assertThatThrownBy(() -> client.lock("k2").acquire(Duration.ofSeconds(1)))
        .isInstanceOf(LockStoreException.class)
        .hasCauseInstanceOf(io.lettuce.core.RedisException.class);
    redis.restart();
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptionsInstanceOf(LockStoreException.class)
        .until(() -> client.lock("k3").tryAcquire().isPresent());
    // Durable fencing: the counter survived the restart (append-only file).
    assertThat(client.capabilities()).contains(Capability.DURABLE_FENCING);
    redis.cli("DEL", "locksmith:{k}:lock");
    assertThat(client.lock("k").acquire(Duration.ofSeconds(5)).fencingToken())
        .isGreaterThan(before);
  }

  @Test
  @DisplayName("without persistence the store does not claim durable fencing")
  void volatileServerIsNotDurable() {
    RedisServer redis = track(RedisServer.startVolatile());
    LockClient client = track(LockClient.open(redis.uri()));
    assertThat(client.capabilities())
        .contains(Capability.FENCING)
        .doesNotContain(Capability.DURABLE_FENCING);
  }

  @Test
  @DisplayName("an ACL user limited to the lock prefix works, including wake-ups")
  void aclUserLimitedToPrefix() throws Exception {
    RedisServer redis =
        track(
            RedisServer.startVolatile(
                "--user", "locker", "on", ">s3cret", "~locksmith:*", "&locksmith:*", "+@all"));
    String uri = "redis://locker:s3cret@127.0.0.1:" + redis.port();
    LockClient a = track(LockClient.open(uri));
    LockClient b = track(LockClient.open(uri));
    Lease l = a.lock("acl").acquire(Duration.ZERO);
    Thread waiter =
        new Thread(
            () -> {
              try {
                b.lock("acl").acquire(Duration.ofSeconds(5)).release();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    Thread.sleep(200);
    l.release();
    waiter.join(5000);
    assertThat(waiter.isAlive()).isFalse();
    // The same user may not touch keys outside the prefix.
    LockClient outside =
        track(LockClient.open(uri, LockOptions.builder().keyPrefix("other:").build()));
    assertThatThrownBy(() -> outside.lock("acl").tryAcquire())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("NOPERM");
  }

  @Test
  @DisplayName("a lease lost while the server was down is reported, and release says so")
  void leaseLostWhileDown() throws Exception {
    RedisServer redis = track(RedisServer.startVolatile());
    LockClient client = track(LockClient.open(redis.uri()));
    Lease lease = client.lock("down").withLeaseTime(Duration.ofMillis(500)).acquire(Duration.ZERO);
    redis.kill();
    await().atMost(Duration.ofSeconds(3)).until(() -> !lease.isValid());
    redis.restart();
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
  }
}
