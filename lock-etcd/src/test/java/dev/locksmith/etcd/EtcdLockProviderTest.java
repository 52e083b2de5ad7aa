package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.etcd.internal.HoldRecord;
import dev.locksmith.etcd.internal.KeyValue;
import dev.locksmith.spi.LockUri;
import dev.locksmith.spi.StoreTiming;
import dev.locksmith.tck.fixture.ServerProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code etcd://} URI grammar and options, discovery through ServiceLoader, and open. */
class EtcdLockProviderTest {

  private static EtcdServer server;

  @BeforeAll
  static void startServer() {
    server = EtcdServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  @DisplayName("LockClient.open finds the provider by the etcd scheme; tokens are create revisions")
  void serviceLoaderFindsProvider() throws Exception {
    try (LockClient c = LockClient.open(server.uri())) {
      assertThat(c.capabilities())
          .containsExactlyInAnyOrder(
              Capability.REENTRANCY,
              Capability.FENCING,
              Capability.DURABLE_FENCING,
              Capability.WAKE_ON_RELEASE);
      long first;
      try (Lease lease = c.lock("provider-test").tryAcquire().orElseThrow()) {
        first = lease.fencingToken();
        KeyValue kv =
            server.kv().get("locksmith/lock/provider-test".getBytes(StandardCharsets.UTF_8));
        assertThat(kv).isNotNull();
        assertThat(kv.createRevision()).isEqualTo(first);
        assertThat(HoldRecord.decode(kv.value()).holds()).isEqualTo(1);
      }
      try (Lease lease = c.lock("provider-test").tryAcquire().orElseThrow()) {
        assertThat(lease.fencingToken()).isGreaterThan(first);
      }
      assertThatThrownBy(() -> c.readWriteLock("rw"))
          .isInstanceOf(UnsupportedCapabilityException.class);
    }
  }

  @Test
  @DisplayName("the store's timing is whole seconds, its minimum the server's shortest TTL")
  void timingIsWholeSeconds() {
    EtcdLockStore s = open(server.uri());
    try (s) {
      // The test server's election timeout is 500 ms: etcd's minimum TTL is ceil(1.5 * 0.5 s).
      assertThat(s.timing())
          .isEqualTo(new StoreTiming(Duration.ofSeconds(1), Duration.ofSeconds(1)));
    }
    assertThat(EtcdLockStore.ttlSeconds(Duration.ofMillis(1))).isEqualTo(1);
    assertThat(EtcdLockStore.ttlSeconds(Duration.ofMillis(1000))).isEqualTo(1);
    assertThat(EtcdLockStore.ttlSeconds(Duration.ofMillis(1001))).isEqualTo(2);
    assertThat(EtcdLockStore.ttlSeconds(Duration.ofMillis(2500))).isEqualTo(3);
  }

  @Test
  @DisplayName("hosts parse with default port, several members and bracketed IPv6")
  void hostGrammar() {
    assertThat(EtcdLockProvider.members(LockUri.parse("etcd://etcd1.invalid")))
        .containsExactly("etcd1.invalid:2379");
    assertThat(EtcdLockProvider.members(LockUri.parse("etcd://a.invalid:1,b.invalid:2/")))
        .containsExactly("a.invalid:1", "b.invalid:2");
    assertThat(EtcdLockProvider.members(LockUri.parse("etcds://[::1]:2479")))
        .containsExactly("[::1]:2479");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "etcd:etcd1",
        "etcd://",
        "etcd://etcd1:0",
        "etcd://etcd1:70000",
        "etcd://etcd1:abc",
        "etcd://user@etcd1",
        "etcd://user:@etcd1",
        "etcd://:pw@etcd1",
        "etcd://etcd1/prefix",
        "etcd://etcd1,etcd1",
        "etcd://etcd1,",
        "etcd://::1",
        "etcd://[::1",
      })
  @DisplayName("malformed URIs are refused with IllegalArgumentException naming the URI")
  void badUris(String uri) {
    assertThatThrownBy(() -> LockClient.open(uri).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock URI");
  }

  @Test
  @DisplayName("a password in the URI never shows in the error message")
  void passwordRedacted() {
    assertThatThrownBy(() -> LockClient.open("etcd://user:s3cret@etcd1/x").close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock URI")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  @DisplayName("unknown options are refused, naming operationTimeout as known")
  void unknownOption() {
    assertThatThrownBy(() -> LockClient.open(server.uri() + "?timeout=1s").close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'timeout'")
        .hasMessageContaining("operationTimeout");
  }

  @ParameterizedTest
  @ValueSource(strings = {"operationTimeout=5ms", "operationTimeout=2m", "operationTimeout=soon"})
  @DisplayName("operationTimeout must be a duration between 10 ms and 1 minute")
  void badOperationTimeout(String option) {
    assertThatThrownBy(() -> LockClient.open(server.uri() + "?" + option).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operationTimeout");
  }

  @Test
  @DisplayName("keyPrefix puts the keys under the prefix")
  void keyPrefix() throws Exception {
    try (LockClient c = LockClient.open(server.uri() + "?keyPrefix=app1/")) {
      try (Lease lease = c.lock("prefixed").tryAcquire().orElseThrow()) {
        assertThat(server.kv().get("app1/lock/prefixed".getBytes(StandardCharsets.UTF_8)))
            .isNotNull();
      }
    }
  }

  @Test
  @DisplayName(
      "no member running: open fails at once with LockStoreException naming the member and"
          + " 'connection refused'")
  void unreachableServer() {
    int port = ServerProcess.freePort();
    long start = System.nanoTime();
    assertThatThrownBy(() -> LockClient.open("etcd://127.0.0.1:" + port).close())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("etcd://127.0.0.1:" + port)
        .hasMessageContaining("127.0.0.1:" + port + ": connection refused");
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
  }

  @Test
  @DisplayName("a port that accepts connections but never answers fails at open with 'timed out'")
  void silentServer() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () ->
                  LockClient.open(
                          "etcd://127.0.0.1:" + silent.getLocalPort() + "?operationTimeout=300ms")
                      .close())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("timed out after 300 ms");
    }
  }

  @Test
  @DisplayName("an HTTP server that is not etcd fails at open with its HTTP status")
  void notEtcd() throws Exception {
    com.sun.net.httpserver.HttpServer http =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.createContext(
        "/",
        exchange -> {
          byte[] body = "no such page".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(404, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    http.start();
    try {
      assertThatThrownBy(
              () -> LockClient.open("etcd://127.0.0.1:" + http.getAddress().getPort()).close())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("HTTP 404 no such page");
    } finally {
      http.stop(0);
    }
  }

  @Test
  @DisplayName("a member that refuses connections is skipped: the next one in the list serves")
  void failsOverToTheNextMember() throws Exception {
    int dead = ServerProcess.freePort();
    try (LockClient c = LockClient.open("etcd://127.0.0.1:" + dead + "," + server.address())) {
      try (Lease lease = c.lock("failover").tryAcquire().orElseThrow()) {
        assertThat(lease.isValid()).isTrue();
      }
    }
  }

  @Test
  @DisplayName("the described store names every member")
  void describeNamesMembers() {
    EtcdLockStore s = open("etcd://" + server.address() + ",[::1]:1");
    try (s) {
      assertThat(s.describe()).isEqualTo("etcd://" + server.address() + ",[::1]:1");
    }
  }

  private static EtcdLockStore open(String uri) {
    return (EtcdLockStore) new EtcdLockProvider().open(LockUri.parse(uri), LockOptions.defaults());
  }
}
