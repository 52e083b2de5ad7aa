package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.internal.EngineClient;
import dev.locksmith.mem.MemLockStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link Lease#releaseHeldAtLeast}: ShedLock's {@code lockAtLeastFor}, kept by the store's expiry,
 * on the mem: store.
 */
class ReleaseHeldAtLeastTest {

  private static final Duration HOLD = Duration.ofMillis(800);

  private final MemClients clients = new MemClients();

  @AfterEach
  void closeClients() {
    clients.close();
  }

  private LockClient client(LockOptions options) {
    return clients.open(options);
  }

  private LockClient client() {
    return clients.open();
  }

  /** Waits until {@code client} can take {@code name}; returns when (System.nanoTime()). */
  private static long takenAt(LockClient client, String name) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> client.lock(name).tryAcquire().map(l -> true).orElse(false));
    return System.nanoTime();
  }

  @Test
  @DisplayName("the lock stays taken until the minimum hold after the acquire, then frees")
  void keptUntilMinimumHold() {
    LockClient a = client();
    LockClient b = client();
    long before = System.nanoTime();
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    lease.releaseHeldAtLeast(HOLD);
    assertThat(lease.isValid()).as("ended for its holder").isFalse();
    assertThat(b.lock("job").tryAcquire()).as("still taken in the store").isEmpty();
    long freed = takenAt(b, "job");
    assertThat(Duration.ofNanos(freed - before)).isGreaterThanOrEqualTo(HOLD);
    lease.release(); // a no-op now
  }

  @Test
  @DisplayName("a minimum hold that has already passed is a plain release")
  void pastHoldReleasesAtOnce() {
    LockClient a = client();
    LockClient b = client();
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    lease.releaseHeldAtLeast(Duration.ZERO);
    assertThat(b.lock("job").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("the hold outlives its holder: closing or crashing the client does not free it")
  void holdOutlivesHolder() {
    LockClient a = client();
    LockClient crashed = client();
    LockClient b = client();
    long before = System.nanoTime();
    a.lock("closed").tryAcquire().orElseThrow().releaseHeldAtLeast(HOLD);
    crashed.lock("crashed").tryAcquire().orElseThrow().releaseHeldAtLeast(HOLD);
    a.close();
    ((EngineClient) crashed).crash();
    assertThat(b.lock("closed").tryAcquire()).isEmpty();
    assertThat(b.lock("crashed").tryAcquire()).isEmpty();
    assertThat(Duration.ofNanos(takenAt(b, "closed") - before)).isGreaterThanOrEqualTo(HOLD);
    assertThat(Duration.ofNanos(takenAt(b, "crashed") - before)).isGreaterThanOrEqualTo(HOLD);
  }

  @Test
  @DisplayName("a hold longer than the lease time is kept although renewal stops")
  void holdLongerThanLease() {
    LockClient a = client(LockOptions.builder().leaseTime(Duration.ofMillis(300)).build());
    LockClient b = client();
    long before = System.nanoTime();
    a.lock("job").tryAcquire().orElseThrow().releaseHeldAtLeast(Duration.ofMillis(1200));
    assertThat(Duration.ofNanos(takenAt(b, "job") - before))
        .isGreaterThanOrEqualTo(Duration.ofMillis(1200));
    assertThat(((EngineClient) a).scheduledTimers()).as("nothing left renewing").isZero();
  }

  @Test
  @DisplayName("a lost lease is reported, and nothing of the next holder's is touched")
  void lostLeaseIsReported() {
    LockClient a = client();
    LockClient b = client();
    Lease lease = a.lock("job").tryAcquire().orElseThrow();
    clients.space().restart(); // drops the hold
    Lease next = b.lock("job").tryAcquire().orElseThrow();
    assertThatThrownBy(() -> lease.releaseHeldAtLeast(HOLD))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("job");
    assertThat(next.isValid()).isTrue();
    next.release();
    assertThat(client().lock("job").tryAcquire()).as("b's release freed it").isPresent();
  }

  @Test
  @DisplayName("bad minimum holds fail with a message that names them")
  void badInput() {
    Lease lease = client().lock("job").tryAcquire().orElseThrow();
    assertThatThrownBy(() -> lease.releaseHeldAtLeast(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minimumHold");
    assertThatThrownBy(() -> lease.releaseHeldAtLeast(Duration.ofDays(8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minimumHold");
    assertThatThrownBy(() -> lease.releaseHeldAtLeast(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("minimumHold");
    assertThat(lease.isValid()).isTrue();
    lease.release();
  }

  @Test
  @DisplayName("session-bound stores: the client keeps the hold and releases it at the minimum")
  void sessionBoundFallback() {
    LockClient a =
        clients.track(LockClient.of(new SessionStore(new MemLockStore(clients.space()))));
    LockClient b = client();
    long before = System.nanoTime();
    a.lock("job").tryAcquire().orElseThrow().releaseHeldAtLeast(HOLD);
    assertThat(b.lock("job").tryAcquire()).isEmpty();
    assertThat(Duration.ofNanos(takenAt(b, "job") - before)).isGreaterThanOrEqualTo(HOLD);
  }
}
