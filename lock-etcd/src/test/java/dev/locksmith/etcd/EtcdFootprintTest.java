package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.DistributedLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.etcd.fixture.EtcdInspector;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.tck.fixture.ClientCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What etcd keeps of a lock once it is released or its holder crashed (keys and leases), and that
 * key prefixes never share a key: against a real etcd member.
 */
class EtcdFootprintTest {

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

  private static LockClient open(String prefix) {
    return LockClient.open(server.uri(), LockOptions.builder().keyPrefix(prefix).build());
  }

  @Test
  @DisplayName(
      "1,000 distinct names acquired (some nested, some contended) and released leave no key and"
          + " no lease, also once the client is closed; a crashed holder's leave none after its"
          + " lease")
  void nothingStaysAfterRelease() {
    EtcdInspector inspector = server.inspector();
    String prefix = "footprint-" + System.nanoTime() + "/";
    long leasesBefore = inspector.leases();
    try (LockClient a = open(prefix);
        LockClient b = open(prefix)) {
      for (int i = 0; i < 1_000; i++) {
        DistributedLock lock = a.lock("order:" + i).withOwner("footprint-owner");
        Lease lease = lock.tryAcquire().orElseThrow();
        if (i % 10 == 0) {
          // Nested: the key moves onto a new lease; the old one must go.
          lock.tryAcquire().orElseThrow().release();
        }
        if (i % 10 == 1) {
          // Contended: the busy attempt granted a lease of its own.
          assertThat(b.lock("order:" + i).tryAcquire()).isEmpty();
        }
        if (i % 10 == 2) {
          assertThat(b.lock("order:" + i).isLocked()).isTrue();
        }
        lease.release();
      }
      assertThat(inspector.entries(prefix)).isZero();
    }
    // Clean-up that was still on its way when the clients closed (lease revokes) has arrived.
    assertThat(inspector.entries(prefix)).isZero();
    assertThat(inspector.leases()).isEqualTo(leasesBefore);

    LockClient crashed =
        LockClient.open(
            server.uri(),
            LockOptions.builder()
                .keyPrefix(prefix)
                .leaseTime(Duration.ofSeconds(2))
                .autoRenew(false)
                .build());
    List<Lease> held = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      held.add(crashed.lock("crashed:" + i).tryAcquire().orElseThrow());
    }
    assertThat(inspector.entries(prefix)).isEqualTo(20);
    ClientCrash.crash(crashed);
    // etcd's minimum TTL here and its twice-a-second expiry check, with slack.
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> inspector.entries(prefix) == 0 && inspector.leases() == leasesBefore);
  }

  @Test
  @DisplayName(
      "prefixes whose keys would concatenate to another's never share a lock: a prefix containing"
          + " 'lock/' is refused at open, naming it")
  void prefixesNeverCollide() {
    String run = Long.toString(System.nanoTime());
    String[][] pairs = {
      {"p" + run + "/", "x/lock/y", "p" + run + "/lock/x/", "y"},
      {"a" + run, "bc", "a" + run + "b", "c"},
      {"", "x" + run + "/foo", "x" + run + "/", "foo"},
      {"q" + run + "/", "lock/y", "q" + run + "/lock/", "y"},
      {"r" + run, "lock/y", "r" + run + "lock/", "y"},
    };
    for (String[] pair : pairs) {
      try (LockClient first = open(pair[0])) {
        Optional<Lease> held = first.lock(pair[1]).tryAcquire();
        assertThat(held).as("first of %s", String.join(" ", pair)).isPresent();
        LockClient second;
        try {
          second = open(pair[2]);
        } catch (IllegalArgumentException refused) {
          assertThat(refused).hasMessageContaining("keyPrefix '" + pair[2] + "'");
          held.get().release();
          continue;
        }
        try (second) {
          Optional<Lease> other = second.lock(pair[3]).tryAcquire();
          assertThat(other).as("second of %s", String.join(" ", pair)).isPresent();
          other.get().release();
        } finally {
          held.get().release();
        }
      }
    }
    for (String prefix : List.of("p/lock/x/", "lock/", "app-lock/")) {
      assertThatThrownBy(() -> open(prefix).close())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix '" + prefix + "'")
          .hasMessageContaining("'lock/'");
    }
    for (String prefix : List.of("", "locksmith/", "lock", "locks/", "p/lock")) {
      open(prefix).close();
    }
  }
}
