package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.spi.StoreTiming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The engine's one way into a store: capabilities from the parts a store provides, failures
 * classified and named, interrupts restored, leases rounded to the store's clock.
 */
class StoreGatewayTest {

  private static final LockKey KEY = new LockKey("gate", LockMode.EXCLUSIVE);

  private EngineClient client;

  @AfterEach
  void close() {
    Thread.interrupted();
    if (client != null) {
      client.close();
    }
  }

  private EngineClient open(TimedStore store) {
    client = new EngineClient(store, LockOptions.defaults());
    return client;
  }

  @Test
  @DisplayName("a store's capabilities are its promises plus one for each part it provides")
  void capabilitiesFollowTheParts() {
    TimedStore polling = new TimedStore(StoreTiming.MILLISECONDS);
    assertThat(open(polling).capabilities())
        .containsExactlyInAnyOrder(
            Capability.FENCING,
            Capability.DURABLE_FENCING,
            Capability.REENTRANCY,
            Capability.READ_WRITE,
            Capability.WAKE_ON_RELEASE);
    client.close();
    TimedStore queueing = new TimedStore(StoreTiming.MILLISECONDS, MemLockStore.Waiters.QUEUE);
    queueing.promises = Set.of();
    queueing.sessionEvents = Optional.of(listener -> {});
    assertThat(open(queueing).capabilities())
        .containsExactlyInAnyOrder(
            Capability.READ_WRITE,
            Capability.WAKE_ON_RELEASE,
            Capability.FAIR_QUEUE,
            Capability.SESSION_BOUND);
  }

  @Test
  @DisplayName("a store that promises a capability only a part can give is refused, naming it")
  void promiseOfAPartIsRefused() {
    TimedStore store = new TimedStore(StoreTiming.MILLISECONDS);
    store.promises = Set.of(Capability.FENCING, Capability.FAIR_QUEUE);
    assertThatThrownBy(() -> new EngineClient(store, LockOptions.defaults()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("FAIR_QUEUE")
        .hasMessageContaining("part");
  }

  @Test
  @DisplayName(
      "a driver's failure, checked or not, becomes LockStoreException naming the operation, the"
          + " lock, the store and the kind of failure, with the driver's exception as cause")
  void failuresAreClassifiedAndNamed() {
    TimedStore store = new TimedStore(StoreTiming.MILLISECONDS);
    StoreGateway gateway = open(store).gateway();
    Exception refused = new ConnectException("Connection refused");
    store.readFailure = () -> refused;
    assertThatThrownBy(() -> gateway.read(KEY))
        .isInstanceOf(LockStoreException.class)
        .hasMessageStartingWith("read of lock 'gate' failed on " + store.describe())
        .hasMessageContaining(StoreFailure.UNAVAILABLE.description())
        .hasMessageContaining("Connection refused")
        .hasCause(refused);
    store.readFailure = () -> new UncheckedIOException(new IOException(new TimeoutException()));
    assertThatThrownBy(() -> gateway.read(KEY))
        .hasMessageContaining(StoreFailure.TIMED_OUT.description());
    store.readFailure = () -> new IllegalStateException("syntax error");
    assertThatThrownBy(() -> gateway.read(KEY))
        .hasMessageContaining(StoreFailure.UNCLASSIFIED.description());
    LockStoreException own = new LockStoreException("this connection is closed");
    store.readFailure = () -> own;
    assertThatThrownBy(() -> gateway.read(KEY)).isSameAs(own);
  }

  @Test
  @DisplayName("an interrupted driver call sets the thread's interrupt flag again")
  void interruptIsRestored() {
    TimedStore store = new TimedStore(StoreTiming.MILLISECONDS);
    StoreGateway gateway = open(store).gateway();
    store.readFailure = InterruptedException::new;
    assertThatThrownBy(() -> gateway.read(KEY))
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining(StoreFailure.INTERRUPTED.description());
    assertThat(Thread.interrupted()).as("interrupt flag after the call").isTrue();
  }

  @Test
  @DisplayName(
      "a channel closed by an interrupt (a file store's FileChannel) is an interrupt, not an"
          + " outage; other closed channels are the store unavailable")
  void closedByInterruptIsAnInterrupt() {
    assertThat(
            StoreFailure.of(
                new java.io.IOException(new java.nio.channels.ClosedByInterruptException())))
        .isEqualTo(StoreFailure.INTERRUPTED);
    assertThat(StoreFailure.of(new java.nio.channels.ClosedChannelException()))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(StoreFailure.of(new java.nio.channels.AsynchronousCloseException()))
        .isEqualTo(StoreFailure.UNAVAILABLE);
  }

  @Test
  @DisplayName(
      "lease times reach the store rounded up to its granularity; whole multiples stay as they"
          + " are")
  void leasesAreRoundedUp() {
    TimedStore store =
        new TimedStore(new StoreTiming(Duration.ofSeconds(1), Duration.ofSeconds(1)));
    StoreGateway gateway = open(store).gateway();
    gateway.tryAcquire(KEY, "a", Duration.ofMillis(1_500));
    gateway.extend(KEY, "a", Duration.ofSeconds(3));
    gateway.extend(KEY, "a", Duration.ofNanos(3_000_000_001L));
    assertThat(store.acquiredWith).containsExactly(Duration.ofSeconds(2));
    assertThat(store.extendedTo).containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(4));
  }

  @Test
  @DisplayName("the client reports its store's shortest lease, the one withLeaseTime enforces")
  void minimumLeaseIsReported() {
    TimedStore store =
        new TimedStore(new StoreTiming(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    EngineClient client = open(store);
    assertThat(client.minimumLease()).isEqualTo(Duration.ofSeconds(2));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> client.lock("short").withLeaseTime(Duration.ofMillis(1_999)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(client.lock("long").withLeaseTime(Duration.ofSeconds(2))).isNotNull();
  }
}
