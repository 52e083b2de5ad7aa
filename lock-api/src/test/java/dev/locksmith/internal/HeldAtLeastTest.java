package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link HeldAtLeast#keep}: the lease it leaves in the store, exactly, and what a failing store or
 * an interrupted caller get.
 */
class HeldAtLeastTest {

  private static final LockKey KEY = new LockKey("kept", LockMode.EXCLUSIVE);
  private static final long MS = 1_000_000L;

  // Leases in whole seconds, no shorter than two.
  private final TimedStore store =
      new TimedStore(new StoreTiming(Duration.ofSeconds(2), Duration.ofSeconds(1)));
  private final EngineClient client =
      new EngineClient(store, LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
  private final String owner = client.newOwner("t");

  @AfterEach
  void close() {
    Thread.interrupted();
    client.close();
  }

  private void hold() throws Exception {
    assertThat(store.tryAcquire(KEY, owner, Duration.ofSeconds(30)).isAcquired()).isTrue();
  }

  @Test
  @DisplayName(
      "the hold is left to the store rounded up to its granularity, never below its minimum"
          + " lease, and a whole multiple stays as it is")
  void roundsUpToTheStoresTiming() throws Exception {
    hold();
    assertThat(HeldAtLeast.keep(client, KEY, owner, 2_300 * MS)).isTrue();
    assertThat(HeldAtLeast.keep(client, KEY, owner, 3_000 * MS)).isTrue();
    assertThat(HeldAtLeast.keep(client, KEY, owner, 3_000 * MS + 1)).isTrue();
    assertThat(HeldAtLeast.keep(client, KEY, owner, 500 * MS)).isTrue();
    assertThat(store.extendedTo)
        .containsExactly(
            Duration.ofSeconds(3),
            Duration.ofSeconds(3),
            Duration.ofSeconds(4),
            Duration.ofSeconds(2));
  }

  @Test
  @DisplayName("the longest minimum hold is the longest lease, included")
  void longestHold() {
    assertThat(HeldAtLeast.check(LockOptions.MAX_LEASE_TIME)).isEqualTo(LockOptions.MAX_LEASE_TIME);
    assertThatThrownBy(() -> HeldAtLeast.check(LockOptions.MAX_LEASE_TIME.plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @DisplayName("a hold the store no longer has is reported as false")
  void goneHold() {
    assertThat(HeldAtLeast.keep(client, KEY, owner, 5_000 * MS)).isFalse();
  }

  @Test
  @DisplayName(
      "a store failure comes out as a LockStoreException naming the lock and the store; the"
          + " store's own LockStoreException comes out as it is")
  void storeFailures() throws Exception {
    hold();
    store.extendFailure = () -> new IllegalStateException("connection reset");
    assertThatThrownBy(() -> HeldAtLeast.keep(client, KEY, owner, 5_000 * MS))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("release of lock 'kept' failed on " + client.storeName())
        .hasMessageContaining("connection reset")
        .hasCauseInstanceOf(IllegalStateException.class);

    LockStoreException own = new LockStoreException("store says no");
    store.extendFailure = () -> own;
    assertThatThrownBy(() -> HeldAtLeast.keep(client, KEY, owner, 5_000 * MS)).isSameAs(own);
  }

  @Test
  @DisplayName("an interrupted caller still gets the store's answer, and keeps its interrupt")
  void interruptedCaller() throws Exception {
    hold();
    Thread.currentThread().interrupt();
    assertThat(HeldAtLeast.keep(client, KEY, owner, 5_000 * MS)).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    Thread.interrupted();
    // Interrupted while it waits for the store's answer (the store answers only after that).
    Thread caller = Thread.currentThread();
    store.duringExtend =
        () -> {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (caller.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
          }
          caller.interrupt();
        };
    assertThat(HeldAtLeast.keep(client, KEY, owner, 5_000 * MS)).isTrue();
    assertThat(Thread.currentThread().isInterrupted())
        .as("flag after an interrupted wait")
        .isTrue();
    assertThat(store.extendedTo).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  @Test
  @DisplayName("on a closing client the store call runs on the caller's thread")
  void closingClientRunsInline() throws Exception {
    hold();
    client.watchdog().shutdown();
    assertThat(HeldAtLeast.keep(client, KEY, owner, 5_000 * MS)).isTrue();
    assertThat(store.extendedTo).containsExactly(Duration.ofSeconds(5));
  }
}
