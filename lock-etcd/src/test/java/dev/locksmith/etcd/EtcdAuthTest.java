package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.etcd.internal.EtcdGateway;
import dev.locksmith.etcd.internal.EtcdGateway.Retry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A real etcd with authentication on: user {@code app} may read and write {@code locksmith/…}. Auth
 * tokens live one second, so a client idle for longer must log in again by itself.
 */
class EtcdAuthTest {

  private static EtcdServer server;

  @BeforeAll
  static void startServer() {
    server = EtcdServer.start("--auth-token-ttl", "1");
    EtcdGateway admin = server.kv().gateway();
    call(admin, "/v3/auth/user/add", "name", "root", "password", "rootpw");
    call(admin, "/v3/auth/role/add", "name", "root");
    call(admin, "/v3/auth/user/grant", "user", "root", "role", "root");
    call(admin, "/v3/auth/user/add", "name", "app", "password", "app pw");
    call(admin, "/v3/auth/role/add", "name", "locks");
    ObjectNode grant = EtcdGateway.object();
    grant.put("name", "locks");
    grant
        .putObject("perm")
        .put("permType", "READWRITE")
        .put("key", b64("locksmith/"))
        .put("range_end", b64("locksmith0"));
    admin.call("/v3/auth/role/grant", grant, Retry.ONCE);
    call(admin, "/v3/auth/user/grant", "user", "app", "role", "locks");
    admin.call("/v3/auth/enable", EtcdGateway.object(), Retry.ONCE);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  @DisplayName(
      "with the user in the URI, locks work, waiters are woken, and an expired token is renewed")
  void rightCredentials() throws Exception {
    String uri = "etcd://app:app%20pw@" + server.address();
    try (LockClient a = LockClient.open(uri);
        LockClient b = LockClient.open(uri)) {
      Lease held = a.lock("auth").tryAcquire().orElseThrow();
      assertThat(held.fencingToken()).isPositive();
      CompletableFuture<Optional<Lease>> waiter =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return b.lock("auth").tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      // Longer than the token's one-second life: the next calls find their token expired.
      Thread.sleep(2_500);
      held.release();
      Lease next = waiter.get(30, TimeUnit.SECONDS).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      next.release();
    }
  }

  @Test
  @DisplayName("a wrong password fails at open, naming the user and etcd's reason")
  void wrongPassword() {
    assertThatThrownBy(() -> LockClient.open("etcd://app:nope@" + server.address()).close())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("etcd refused the credentials of user 'app'")
        .hasMessageContaining("authentication failed")
        .hasMessageNotContaining("nope");
  }

  @Test
  @DisplayName("no user on a cluster with authentication on: lock calls fail saying so")
  void noCredentials() {
    assertThatThrownBy(
            () -> {
              try (LockClient c = LockClient.open(server.uri())) {
                c.lock("anonymous").tryAcquire();
              }
            })
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("authentication on");
  }

  private static void call(EtcdGateway gateway, String path, String... fields) {
    ObjectNode body = EtcdGateway.object();
    for (int i = 0; i < fields.length; i += 2) {
      body.put(fields[i], fields[i + 1]);
    }
    gateway.call(path, body, Retry.ONCE);
  }

  private static String b64(String s) {
    return EtcdGateway.base64(s.getBytes(StandardCharsets.UTF_8));
  }
}
