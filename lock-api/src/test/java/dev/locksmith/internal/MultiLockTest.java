package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Lease;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.MultiLease;
import dev.locksmith.MultiLock;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.StoreTiming;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code lockAll}: its names, its leases, and how it releases them. */
class MultiLockTest {

  private final TimedStore store = new TimedStore(StoreTiming.MILLISECONDS);
  private final EngineClient client = new EngineClient(store, LockOptions.defaults());

  @AfterEach
  void close() {
    store.space().endOutage();
    client.close();
  }

  @Test
  @DisplayName("the names are checked, distinct, and kept in their canonical (sorted) order")
  void names() {
    assertThat(client.lockAll("b", "c", "a").names()).containsExactly("a", "b", "c");
    assertThatThrownBy(() -> client.lockAll(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one name");
    assertThatThrownBy(() -> client.lockAll("a", "b", "a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a' appears more than once");
  }

  @Test
  @DisplayName(
      "acquire() takes every lock; lease(name) finds each, refuses others; release is idempotent")
  void leases() throws InterruptedException {
    MultiLock all = client.lockAll("b", "a");
    MultiLease held = all.acquire();
    assertThat(held.leases()).extracting(Lease::name).containsExactly("a", "b");
    assertThat(held.lease("b").name()).isEqualTo("b");
    assertThatThrownBy(() -> held.lease("c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'c' is not one of the locks held here");
    assertThat(held.isValid()).isTrue();
    held.release();
    assertThat(held.isValid()).isFalse();
    held.close(); // A second release does nothing.
    assertThat(client.lock("a").isLocked() || client.lock("b").isLocked()).isFalse();
    MultiLease again = all.tryAcquire(java.time.Duration.ofSeconds(1)).orElseThrow();
    assertThat(again.leases()).hasSize(2);
    again.release();
  }

  @Test
  @DisplayName(
      "a lease lost among them makes the set invalid; a release that fails on several locks"
          + " throws the first failure with the others suppressed")
  void partialLossAndFailingRelease() throws InterruptedException {
    MultiLease held = client.lockAll("a", "b", "c").acquire();
    store.space().deleteHolds("b", LockMode.EXCLUSIVE);
    assertThatThrownBy(() -> held.lease("b").extend(java.time.Duration.ofSeconds(5)))
        .isInstanceOf(dev.locksmith.LeaseLostException.class);
    assertThat(held.isValid()).isFalse();
    store.space().startOutage();
    // Released in reverse order: c fails first, then b (lost), then a fails.
    assertThatThrownBy(held::release)
        .isInstanceOf(LockStoreException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2));
  }
}
