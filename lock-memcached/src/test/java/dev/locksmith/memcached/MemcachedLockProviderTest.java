package dev.locksmith.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedCapabilityException;
import dev.locksmith.spi.LockUri;
import dev.locksmith.tck.fixture.ServerProcess;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import net.spy.memcached.ArrayModNodeLocator;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeLocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code memcached://} URI grammar and options, and discovery through ServiceLoader. */
class MemcachedLockProviderTest {

  private static MemcachedServer server;

  @BeforeAll
  static void startServer() {
    server = MemcachedServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  @DisplayName(
      "several servers share the keys by ketama hashing, as every ketama client places them; one"
          + " server takes every key without hashing")
  void keyPlacement() {
    ConnectionFactory several = MemcachedLockProvider.connectionFactory(Duration.ofSeconds(1), 2);
    assertThat(several.getHashAlg()).isEqualTo(DefaultHashAlgorithm.KETAMA_HASH);
    assertThat(several.createLocator(List.of())).isInstanceOf(KetamaNodeLocator.class);
    ConnectionFactory one = MemcachedLockProvider.connectionFactory(Duration.ofSeconds(1), 1);
    assertThat(one.createLocator(List.of())).isInstanceOf(ArrayModNodeLocator.class);
  }

  @Test
  @DisplayName("LockClient.open finds the provider by the memcached scheme")
  void serviceLoaderFindsProvider() throws Exception {
    try (LockClient c = LockClient.open(server.uri())) {
      assertThat(c.capabilities())
          .containsExactlyInAnyOrder(
              Capability.REENTRANCY, Capability.FENCING, Capability.DURABLE_FENCING);
      try (Lease lease = c.lock("provider-test").tryAcquire().orElseThrow()) {
        assertThat(lease.fencingToken()).isPositive();
      }
    }
  }

  @Test
  @DisplayName("hosts parse with default port, several servers and bracketed IPv6")
  void hostGrammar() {
    assertThat(MemcachedLockProvider.servers(LockUri.parse("memcached://cache1.invalid")))
        .extracting(a -> a.getHostString() + ":" + a.getPort())
        .containsExactly("cache1.invalid:11211");
    assertThat(MemcachedLockProvider.servers(LockUri.parse("memcached://a.invalid:1,b.invalid:2/")))
        .extracting(a -> a.getHostString() + ":" + a.getPort())
        .containsExactly("a.invalid:1", "b.invalid:2");
    assertThat(MemcachedLockProvider.servers(LockUri.parse("memcached://[::1]:11311")))
        .extracting(InetSocketAddress::getPort)
        .containsExactly(11311);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "memcached:cache1",
        "memcached://",
        "memcached://cache1:0",
        "memcached://cache1:70000",
        "memcached://cache1:abc",
        "memcached://user:pw@cache1",
        "memcached://cache1/0",
        "memcached://cache1,cache1",
        "memcached://cache1,",
        "memcached://::1",
        "memcached://[::1",
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
    assertThatThrownBy(() -> LockClient.open("memcached://user:s3cret@cache1").close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cret");
  }

  @Test
  @DisplayName("unknown options are refused, naming operationTimeout and fencing as known")
  void unknownOption() {
    assertThatThrownBy(() -> LockClient.open(server.uri() + "?timeout=1s").close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'timeout'")
        .hasMessageContaining("operationTimeout")
        .hasMessageContaining("fencing");
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
  @DisplayName("fencing=false declares no FENCING and refuses fencingToken()")
  void fencingOff() throws Exception {
    try (LockClient c = LockClient.open(server.uri() + "?fencing=false&operationTimeout=500ms")) {
      assertThat(c.capabilities()).containsExactly(Capability.REENTRANCY);
      try (Lease lease = c.lock("no-fencing").tryAcquire().orElseThrow()) {
        assertThatThrownBy(lease::fencingToken).isInstanceOf(UnsupportedCapabilityException.class);
      }
    }
    assertThatThrownBy(() -> LockClient.open(server.uri() + "?fencing=maybe").close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fencing");
  }

  @Test
  @DisplayName(
      "keyPrefix puts the items under the prefix; a prefix memcached cannot take is refused")
  void keyPrefix() throws Exception {
    try (LockClient c = LockClient.open(server.uri() + "?keyPrefix=app1:")) {
      try (Lease lease = c.lock("prefixed").tryAcquire().orElseThrow()) {
        MemcachedLockStore raw =
            (MemcachedLockStore)
                new MemcachedLockProvider()
                    .open(
                        LockUri.parse(server.uri()),
                        LockOptions.builder().keyPrefix("app1:").build());
        try (raw) {
          assertThat(raw.client().get("app1:lock:prefixed")).isNotNull();
        }
      }
    }
    assertThatThrownBy(
            () -> LockClient.open(server.uri(), LockOptions.builder().keyPrefix("my app:").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix");
  }

  @Test
  @DisplayName(
      "a server that is not running: open fails with LockStoreException within the connect"
          + " timeout, naming the server")
  void unreachableServer() throws Exception {
    int port = ServerProcess.freePort();
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                LockClient.open("memcached://127.0.0.1:" + port + "?operationTimeout=500ms")
                    .close())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("memcached://127.0.0.1:" + port)
        .hasMessageContaining("no server answered");
    // The bound is the connect timeout (500 ms) plus room for a loaded machine: not minutes.
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
  }

  @Test
  @DisplayName("a port that accepts connections but does not speak memcached fails at open as well")
  void notMemcached() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () ->
                  LockClient.open(
                          "memcached://127.0.0.1:"
                              + silent.getLocalPort()
                              + "?operationTimeout=500ms")
                      .close())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("no server answered");
    }
  }

  @Test
  @DisplayName("the described store names every server")
  void describeNamesServers() {
    MemcachedLockStore s =
        (MemcachedLockStore)
            new MemcachedLockProvider()
                .open(
                    LockUri.parse("memcached://127.0.0.1:" + server.port() + ",[::1]:1"),
                    LockOptions.defaults());
    try (s) {
      assertThat(s.describe())
          .isEqualTo("memcached://127.0.0.1:" + server.port() + ",[0:0:0:0:0:0:0:1]:1");
    }
  }
}
