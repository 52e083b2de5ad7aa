package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.broken.ClientClockLockStore;
import dev.locksmith.tck.broken.CounterLockStore;
import dev.locksmith.tck.broken.KeyValueSpace;
import dev.locksmith.tck.broken.NoExpiryLockStore;
import dev.locksmith.tck.broken.PlainDeleteLockStore;
import dev.locksmith.tck.broken.SetThenExpireLockStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

/**
 * Negative controls: the kit, run against each deliberately broken store, must report it broken,
 * and in the rules that name its defect.
 */
class BrokenStoresTest {

  /** Release by plain DEL. */
  static final class PlainDeleteKit extends LockStoreContract {
    private static final KeyValueSpace SPACE = new KeyValueSpace();

    @Override
    protected LockClient newClient(LockOptions options) {
      return LockClient.of(new PlainDeleteLockStore(SPACE), options);
    }
  }

  /** SETNX, then EXPIRE as a second step. */
  static final class SetThenExpireKit extends LockStoreContract {
    private static final KeyValueSpace SPACE = new KeyValueSpace();

    @Override
    protected LockClient newClient(LockOptions options) {
      return LockClient.of(new SetThenExpireLockStore(SPACE), options);
    }
  }

  /** GETSET timestamps on the clients' clocks; every second client's clock is 5 minutes ahead. */
  static final class ClientClockKit extends LockStoreContract {
    private static final KeyValueSpace SPACE = new KeyValueSpace();
    private final AtomicInteger clients = new AtomicInteger();

    @Override
    protected LockClient newClient(LockOptions options) {
      Duration skew = clients.getAndIncrement() % 2 == 0 ? Duration.ZERO : Duration.ofMinutes(5);
      return LockClient.of(
          new ClientClockLockStore(SPACE, Clock.offset(Clock.systemUTC(), skew)), options);
    }
  }

  /** INCR == 1 wins. */
  static final class CounterKit extends LockStoreContract {
    private static final KeyValueSpace SPACE = new KeyValueSpace();

    @Override
    protected LockClient newClient(LockOptions options) {
      return LockClient.of(new CounterLockStore(SPACE), options);
    }
  }

  /** Owner-checked, never expires. */
  static final class NoExpiryKit extends LockStoreContract {
    private static final KeyValueSpace SPACE = new KeyValueSpace();

    @Override
    protected LockClient newClient(LockOptions options) {
      return LockClient.of(new NoExpiryLockStore(SPACE), options);
    }
  }

  @Test
  @DisplayName("plain-DEL release fails the store's owner checks (12.2, 12.4) and 2.1")
  void plainDelete() {
    Set<String> failed =
        failedRules(PlainDeleteKit.class, OwnershipRules.class, StoreSpiRules.class);
    assertThat(failed).contains("2.1", "12.2", "12.4");
  }

  @Test
  @DisplayName(
      "SETNX-then-EXPIRE fails rule 3.1: a holder that crashed between the two never frees")
  void setThenExpire() {
    Set<String> failed = failedRules(SetThenExpireKit.class, ExpiryRules.class);
    assertThat(failed).contains("3.1");
  }

  @Test
  @DisplayName(
      "the GETSET client-clock lock fails mutual exclusion (1.1) under clock skew and the store's"
          + " owner checks (12.2)")
  void clientClock() {
    Set<String> failed =
        failedRules(ClientClockKit.class, MutualExclusionRules.class, StoreSpiRules.class);
    assertThat(failed).contains("1.1", "12.2");
  }

  @Test
  @DisplayName("the INCR lock fails rule 3.1 (a crashed holder never frees) and 12.2")
  void counter() {
    Set<String> failed = failedRules(CounterKit.class, ExpiryRules.class, StoreSpiRules.class);
    assertThat(failed).contains("3.1", "12.2");
  }

  @Test
  @DisplayName(
      "the no-expiry lock fails rules 3.1 and 3.3: nothing ever frees a dead holder's lock")
  void noExpiry() {
    Set<String> failed = failedRules(NoExpiryKit.class, ExpiryRules.class);
    assertThat(failed).contains("3.1", "3.3");
  }

  /**
   * Runs the rules of {@code groups} against {@code kit} (all of them without groups); the ids of
   * the rules that failed.
   */
  static Set<String> failedRules(Class<? extends LockStoreContract> kit, Class<?>... groups) {
    Events tests = KitRuns.run(kit, groups);
    assertThat(tests.started().count()).as("tests the kit ran against %s", kit).isPositive();
    Set<String> failed = KitRuns.failedRules(tests);
    // Printed for the report: which rules caught this store.
    System.out.println(kit.getSimpleName() + " failed " + failed);
    return failed;
  }
}
