package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.internal.EngineClient;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A lease's life in the engine past the happy path: extend and release after it ended, a loss the
 * store reports, a crash, and the client's bookkeeping of timers.
 */
class LeaseLifecycleTest {

  private final MemClients clients = new MemClients();

  @AfterEach
  void closeClients() {
    clients.close();
  }

  private static AtomicInteger countLosses(Lease lease) {
    AtomicInteger told = new AtomicInteger();
    lease.onLost((l, why) -> told.incrementAndGet());
    return told;
  }

  @Test
  @DisplayName(
      "expiresAt() is read off the options' clock, stays the same when asked again, and moves with"
          + " an extension")
  void expiresAtFollowsTheClockAndTheLease() {
    Instant fixed = Instant.parse("2030-01-01T00:00:00Z");
    LockClient a =
        clients.open(
            LockOptions.builder()
                .clock(Clock.fixed(fixed, ZoneOffset.UTC))
                .autoRenew(false)
                .leaseTime(Duration.ofSeconds(30))
                .build());
    Lease lease = a.lock("x").tryAcquire().orElseThrow();
    Instant first = lease.expiresAt();
    // The clock stands still, so the time since the acquire started only moves the answer earlier.
    assertThat(first).isBetween(fixed.plusSeconds(20), fixed.plusSeconds(30));
    assertThat(lease.expiresAt()).as("asked again").isEqualTo(first);

    lease.extend(Duration.ofSeconds(90));
    assertThat(lease.expiresAt()).isBetween(fixed.plusSeconds(80), fixed.plusSeconds(90));
    lease.release();
  }

  @Test
  @DisplayName("extend after release is refused as a misuse, without asking the store")
  void extendAfterRelease() {
    Lease lease = clients.open().lock("x").tryAcquire().orElseThrow();
    lease.release();
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already released");
  }

  @Test
  @DisplayName(
      "an extend that finds the hold gone marks the lease lost: onLost fires once, isValid turns"
          + " false, and release reports the loss")
  void extendFindsHoldGone() {
    LockClient a = clients.open(LockOptions.builder().autoRenew(false).build());
    Lease lease = a.lock("x").tryAcquire().orElseThrow();
    AtomicInteger told = countLosses(lease);
    clients.space().deleteHolds("x", LockMode.EXCLUSIVE);
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
        .isInstanceOf(LeaseLostException.class);
    assertThat(told).hasValue(1);
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
    assertThat(told).as("onLost calls after release").hasValue(1);
  }

  @Test
  @DisplayName(
      "a release that finds the hold gone reports the loss to the listeners as well as to the"
          + " caller")
  void releaseFindsHoldGone() {
    Lease lease = clients.open().lock("x").tryAcquire().orElseThrow();
    AtomicInteger told = countLosses(lease);
    clients.space().deleteHolds("x", LockMode.EXCLUSIVE);
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
    assertThat(told).hasValue(1);
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  @DisplayName(
      "extending to a shorter lease without auto-renew moves the loss report forward: onLost fires"
          + " at the new expiry, not the old one")
  void shorterExtendMovesTheExpiry() {
    LockClient a =
        clients.open(
            LockOptions.builder().autoRenew(false).leaseTime(Duration.ofSeconds(60)).build());
    Lease lease = a.lock("x").tryAcquire().orElseThrow();
    AtomicInteger told = countLosses(lease);
    lease.extend(Duration.ofMillis(300));
    await().atMost(Duration.ofSeconds(10)).untilAtomic(told, org.hamcrest.Matchers.is(1));
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  @DisplayName("an auto-renewed lease extended to a shorter lease is renewed on the new lease")
  void autoRenewAfterShorterExtend() throws Exception {
    LockClient a = clients.open(LockOptions.builder().leaseTime(Duration.ofSeconds(60)).build());
    Lease lease = a.lock("x").tryAcquire().orElseThrow();
    AtomicInteger told = countLosses(lease);
    // Renewed every second (a third of 3 s): a renewal thread a second late still keeps it.
    lease.extend(Duration.ofSeconds(3));
    Thread.sleep(5_000);
    assertThat(told).as("losses of a lease renewed on its new, shorter lease").hasValue(0);
    assertThat(lease.isValid()).isTrue();
    lease.release();
  }

  @Test
  @DisplayName(
      "a lease the engine gave up locally is released in the store when its holder releases it,"
          + " so the lock frees at once, not when the store's longer hold ends")
  void releaseOfLostLeaseFreesTheStoreHold() {
    // The store keeps holds far longer than asked (as a store with coarse granularity would).
    LockStore lingering =
        new MemLockStoreAround(new MemLockStore(clients.space())) {
          @Override
          public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
            return super.tryAcquire(key, owner, Duration.ofMinutes(10));
          }
        };
    LockClient a =
        clients.track(
            LockClient.of(
                lingering,
                LockOptions.builder().autoRenew(false).leaseTime(Duration.ofMillis(300)).build()));
    Lease lease = a.lock("x").tryAcquire().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
    assertThat(clients.open().lock("x").tryAcquire())
        .as("the lock once its lost lease was released")
        .hasValueSatisfying(Lease::release);
  }

  @Test
  @DisplayName(
      "a crashed client stops renewing and keeps its holds: the lock frees when the lease runs"
          + " out, and the client watches nothing any more")
  void crashStopsRenewal() {
    EngineClient a =
        (EngineClient) clients.open(LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build());
    a.lock("x").tryAcquire().orElseThrow();
    assertThat(a.scheduledTimers()).as("timers while a lease is held").isEqualTo(1);
    a.crash();
    assertThat(a.scheduledTimers()).as("timers after the crash").isZero();
    LockClient b = clients.open();
    assertThat(b.lock("x").tryAcquire()).as("right after the crash").isEmpty();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> b.lock("x").tryAcquire().map(l -> true).orElse(false));
    assertThatThrownBy(() -> a.lock("y")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  @DisplayName(
      "readWriteLock is refused on a closed client and on a store without READ_WRITE, naming why")
  void readWriteLockRefusals() {
    LockClient closed = clients.open();
    closed.close();
    assertThatThrownBy(() -> closed.readWriteLock("x")).isInstanceOf(IllegalStateException.class);

    LockStore exclusiveOnly = new MemLockStoreAround(new MemLockStore(clients.space()));
    LockClient c = clients.track(LockClient.of(exclusiveOnly));
    assertThatThrownBy(() -> c.readWriteLock("x"))
        .isInstanceOf(UnsupportedCapabilityException.class)
        .hasMessageContaining("READ_WRITE");
  }

  /** A mem: connection with the exclusive core only: no read-write holds, no release push. */
  private static class MemLockStoreAround implements LockStore {
    private final MemLockStore store;

    MemLockStoreAround(MemLockStore store) {
      this.store = store;
    }

    @Override
    public String describe() {
      return store.describe();
    }

    @Override
    public String keyPrefix() {
      return store.keyPrefix();
    }

    @Override
    public Set<Capability> promises() {
      return store.promises();
    }

    @Override
    public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
      return store.tryAcquire(key, owner, leaseTime);
    }

    @Override
    public boolean extend(LockKey key, String owner, Duration leaseTime) {
      return store.extend(key, owner, leaseTime);
    }

    @Override
    public ReleaseOutcome release(LockKey key, String owner) {
      return store.release(key, owner);
    }

    @Override
    public LockState read(LockKey key) {
      return store.read(key);
    }

    @Override
    public void close() {
      store.close();
    }
  }
}
