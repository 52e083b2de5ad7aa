package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;

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
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
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
  @DisplayName("plain-DEL release fails the owner-checked release rules 2.1, 2.3 and 2.4")
  void plainDelete() {
    Set<String> failed = failedRules(PlainDeleteKit.class, LockStoreContract.Ownership.class);
    assertThat(failed).contains("Rule 2.1", "Rule 2.3", "Rule 2.4");
  }

  @Test
  @DisplayName(
      "SETNX-then-EXPIRE fails rule 3.1: a holder that crashed between the two never frees")
  void setThenExpire() {
    Set<String> failed = failedRules(SetThenExpireKit.class, LockStoreContract.Expiry.class);
    assertThat(failed).contains("Rule 3.1");
  }

  @Test
  @DisplayName(
      "the GETSET client-clock lock fails mutual exclusion (1.1) under clock skew and owner-checked"
          + " release (2.1)")
  void clientClock() {
    Set<String> failed =
        failedRules(
            ClientClockKit.class,
            LockStoreContract.MutualExclusion.class,
            LockStoreContract.Ownership.class);
    assertThat(failed).contains("Rule 1.1", "Rule 2.1");
  }

  @Test
  @DisplayName("the INCR lock fails rule 3.1 (a crashed holder never frees) and rule 2.1")
  void counter() {
    Set<String> failed =
        failedRules(
            CounterKit.class, LockStoreContract.Expiry.class, LockStoreContract.Ownership.class);
    assertThat(failed).contains("Rule 3.1", "Rule 2.1");
  }

  @Test
  @DisplayName(
      "the no-expiry lock fails rules 3.1 and 3.3: nothing ever frees a dead holder's lock")
  void noExpiry() {
    Set<String> failed = failedRules(NoExpiryKit.class, LockStoreContract.Expiry.class);
    assertThat(failed).contains("Rule 3.1", "Rule 3.3");
  }

  /** Runs the given groups of the kit against {@code kit}; the rule numbers of the failed tests. */
  static Set<String> failedRules(Class<? extends LockStoreContract> kit, Class<?>... groups) {
    Events tests =
        EngineTestKit.engine("junit-jupiter")
            .selectors(
                Arrays.stream(groups)
                    .map(g -> selectNestedClass(List.of(kit), g))
                    .toArray(DiscoverySelector[]::new))
            .execute()
            .testEvents();
    assertThat(tests.started().count()).as("tests the kit ran against %s", kit).isPositive();
    Set<String> failed =
        tests.failed().stream()
            .map(BrokenStoresTest::rule)
            .collect(Collectors.toCollection(TreeSet::new));
    // Printed for the report: which rules caught this store.
    System.out.println(kit.getSimpleName() + " failed " + failed);
    return failed;
  }

  private static String rule(Event e) {
    String name = e.getTestDescriptor().getDisplayName();
    int colon = name.indexOf(':');
    return colon < 0 ? name : name.substring(0, colon);
  }
}
