package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What the engine does with the events a session store pushes on its own (ZooKeeper's dropped nodes
 * and connection states), played by {@link SessionStore}.
 */
class StoreEventsTest {

  private final MemClients clients = new MemClients();
  private final SessionStore store = new SessionStore(new MemLockStore(clients.space()));
  private final LockClient client = clients.track(LockClient.of(store));
  private final List<String> heard = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeClients() {
    clients.close();
  }

  private Lease held(String name) {
    return client
        .lock(name)
        .tryAcquire()
        .orElseThrow()
        .onLost(
            new LeaseLostListener() {
              @Override
              public void leaseLost(Lease lease, LeaseLostException reason) {
                heard.add(lease.name() + " lost: " + reason.reason());
              }

              @Override
              public void leaseSuspended(Lease lease) {
                heard.add(lease.name() + " suspended");
              }

              @Override
              public void leaseResumed(Lease lease) {
                heard.add(lease.name() + " resumed");
              }
            });
  }

  @Test
  @DisplayName("a dropped hold ends that owner's lease on that lock only, with the store's reason")
  void holdLost() {
    Lease a = held("a");
    Lease b = held("b");
    LockKey keyA = LockKey.exclusive("a");
    long token = store.tokenOf("a");
    store
        .events()
        .holdLost(new LockKey("a", LockMode.READ), store.ownerOf("a"), token, "other mode");
    store.events().holdLost(keyA, "someone-else", token, "other owner");
    store.events().holdLost(keyA, store.ownerOf("a"), token + 1, "other hold");
    assertThat(a.isValid())
        .as("after events for another mode, another owner and another hold")
        .isTrue();
    assertThat(heard).isEmpty();

    store.events().holdLost(keyA, store.ownerOf("a"), token, "node gone");
    assertThat(a.isValid()).isFalse();
    assertThat(b.isValid()).as("the lease on another lock").isTrue();
    assertThat(heard).containsExactly("a lost: node gone");
    assertThatThrownBy(a::release)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("node gone");
    b.release();
  }

  @Test
  @DisplayName(
      "a late report of an owner's earlier hold does not end the same owner's newer hold of that"
          + " lock")
  void lateReportOfOlderHold() {
    DistributedLock lock = client.lock("a").withOwner("job-17");
    lock.tryAcquire().orElseThrow().release();
    long olderToken = store.tokenOf("a");
    Lease newer = lock.tryAcquire().orElseThrow();
    assertThat(store.tokenOf("a")).isNotEqualTo(olderToken);

    store.events().holdLost(LockKey.exclusive("a"), "job-17", olderToken, "older node deleted");
    assertThat(newer.isValid()).as("the newer hold after a report of the older one").isTrue();
    newer.release();
  }

  @Test
  @DisplayName(
      "a suspended connection makes every lease invalid until it resumes; each listener hears"
          + " both, and a resume without a suspension is not reported")
  void suspendedAndResumed() {
    Lease a = held("a");
    Lease b = held("b");
    store.events().resumed();
    assertThat(heard).as("a resume with nothing suspended").isEmpty();

    store.events().suspended();
    assertThat(a.isValid()).isFalse();
    assertThat(b.isValid()).isFalse();
    assertThat(heard).containsExactlyInAnyOrder("a suspended", "b suspended");

    store.events().resumed();
    assertThat(a.isValid()).isTrue();
    assertThat(b.isValid()).isTrue();
    assertThat(heard)
        .containsExactlyInAnyOrder("a suspended", "b suspended", "a resumed", "b resumed");
    a.release();
    b.release();
  }

  @Test
  @DisplayName("a lost session ends every lease of the client, each told once with the reason")
  void sessionLost() {
    Lease a = held("a");
    Lease b = held("b");
    store.events().sessionLost("session expired");
    store.events().sessionLost("told twice");
    assertThat(a.isValid()).isFalse();
    assertThat(b.isValid()).isFalse();
    assertThat(heard)
        .containsExactlyInAnyOrder("a lost: session expired", "b lost: session expired");
    assertThatThrownBy(b::release).isInstanceOf(LeaseLostException.class);
  }

  @Test
  @DisplayName(
      "a lost session wakes the client's waiters, which ask the store again at once instead of at"
          + " their next turn")
  void sessionLostWakesWaiters() throws Exception {
    Lease held = clients.open().lock("a").tryAcquire().orElseThrow();
    SessionStore waitingStore = new SessionStore(new MemLockStore(clients.space()));
    LockClient waiting =
        clients.track(
            LockClient.of(
                waitingStore,
                LockOptions.builder()
                    .backoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
                    .build()));
    CompletableFuture<Lease> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return waiting.lock("a").acquire(Duration.ofMinutes(1));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> waitingStore.acquireCalls.get() >= 1);
    int asked = waitingStore.acquireCalls.get();
    waitingStore.events().sessionLost("session expired");
    await().atMost(Duration.ofSeconds(5)).until(() -> waitingStore.acquireCalls.get() > asked);
    held.release();
    waiter.cancel(true);
  }
}
