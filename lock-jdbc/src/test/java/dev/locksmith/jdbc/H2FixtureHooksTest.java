package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.jdbc.fixture.H2Fixture;
import dev.locksmith.tck.ClientLinks;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.ClientCrash;
import dev.locksmith.tck.fixture.RunningStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit hooks of the JDBC fixtures (the inspector and the client links, shared by the PostgreSQL
 * and MariaDB fixtures), on the H2 server fixture: what the kit's footprint and link rules rely on.
 */
class H2FixtureHooksTest {

  private static RunningStore store;
  private final List<LockClient> clients = new ArrayList<>();

  @BeforeAll
  static void start() {
    store = new H2Fixture().start();
  }

  @AfterAll
  static void stop() {
    store.close();
  }

  @AfterEach
  void closeClients() {
    clients.forEach(LockClient::close);
  }

  private LockClient client(String keyPrefix, Duration lease) {
    LockClient c = store.open(LockOptions.builder().keyPrefix(keyPrefix).leaseTime(lease).build());
    clients.add(c);
    return c;
  }

  @Test
  @DisplayName(
      "The inspector counts a prefix's rows (and the shared sequence); a crashed holder's rows go"
          + " within the cleanup delay")
  void inspectorCountsRowsUnderAPrefix() {
    StoreInspector inspector = store.inspector().orElseThrow();
    LockClient a = client("hooks-a", Duration.ofSeconds(30));
    LockClient other = client("hooks-ab", Duration.ofSeconds(30));
    Lease held = a.lock("x").tryAcquire().orElseThrow();
    a.readWriteLock("rw").readLock().tryAcquire().orElseThrow();
    other.lock("x").tryAcquire().orElseThrow();
    // x, rw's writer row and its reader; "hooks-ab" is another prefix, not counted under "hooks-a".
    assertThat(inspector.entries("hooks-a")).isEqualTo(3 + inspector.sharedEntries());
    held.release();
    assertThat(inspector.entries("hooks-a")).isEqualTo(2 + inspector.sharedEntries());

    Duration lease = Duration.ofMillis(600);
    LockClient doomed = client("hooks-c", lease);
    for (int i = 0; i < 5; i++) {
      doomed.lock("crashed-" + i).tryAcquire().orElseThrow();
    }
    ClientCrash.crash(doomed);
    assertThat(inspector.entries("hooks-c")).isEqualTo(5 + inspector.sharedEntries());
    await()
        .atMost(lease.plus(inspector.cleanupDelay()).plusSeconds(1))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> inspector.entries("hooks-c") <= inspector.sharedEntries());
  }

  @Test
  @DisplayName("evictIdle drops what no live hold needs and keeps live holds; tokens keep rising")
  void evictIdleKeepsLiveHolds() throws Exception {
    StoreInspector inspector = store.inspector().orElseThrow();
    LockClient c = client("hooks-e", Duration.ofSeconds(30));
    Lease live = c.lock("live").tryAcquire().orElseThrow();
    Lease lapsed =
        c.lock("lapsed").withLeaseTime(Duration.ofMillis(300)).withAutoRenew(false).acquire();
    long highest = Math.max(live.fencingToken(), lapsed.fencingToken());
    await().atMost(Duration.ofSeconds(5)).until(() -> !c.lock("lapsed").isLocked());
    inspector.evictIdle("hooks-e");
    assertThat(inspector.entries("hooks-e")).isEqualTo(1 + inspector.sharedEntries());
    assertThat(live.isValid()).isTrue();
    assertThat(c.lock("live").isLocked()).isTrue();
    try (Lease again = c.lock("lapsed").tryAcquire().orElseThrow()) {
      assertThat(again.fencingToken()).isGreaterThan(highest);
    }
    live.release();
  }

  @Test
  @DisplayName("A linked client fails with LockStoreException within the store timeout once cut")
  void linksCutAClientOff() {
    ClientLinks links = store.links().orElseThrow();
    LockClient linked = links.open(LockOptions.defaults());
    clients.add(linked);
    linked.lock("linked").tryAcquire().orElseThrow().release();
    links.cut(linked);
    long started = System.nanoTime();
    assertThatThrownBy(() -> linked.lock("linked").tryAcquire())
        .isInstanceOf(LockStoreException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(store.storeTimeout());
    // Others are not cut off.
    LockClient direct = store.open(LockOptions.defaults());
    clients.add(direct);
    assertThat(direct.lock("linked").tryAcquire()).isPresent();
  }
}
