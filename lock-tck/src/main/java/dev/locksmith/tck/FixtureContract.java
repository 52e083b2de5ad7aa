package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract against a store its {@link StoreFixture} starts: one server per test class, stopped
 * after it. A store's whole contract test is
 *
 * <pre>{@code
 * class RedisLockContractTest extends FixtureContract {
 *   RedisLockContractTest() {
 *     super(new RedisFixture());
 *   }
 * }
 * }</pre>
 *
 * <p>Every hook of {@link LockStoreContract} comes from the {@link RunningStore}.
 */
@ExtendWith(FixtureExtension.class)
public abstract class FixtureContract extends LockStoreContract {

  private final StoreFixture fixture;
  private RunningStore store;

  /** The kit against the stores {@code fixture} starts. */
  protected FixtureContract(StoreFixture fixture) {
    this.fixture = Objects.requireNonNull(fixture, "fixture must not be null");
  }

  final StoreFixture fixture() {
    return fixture;
  }

  final void runOn(RunningStore running) {
    this.store = running;
  }

  /** The store under test, started for this class. */
  protected final RunningStore store() {
    return Objects.requireNonNull(store, "the fixture has not started the store yet");
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return store().open(options);
  }

  @Override
  protected Duration shortLease() {
    return store().shortLease();
  }

  @Override
  protected Duration timingSlack() {
    return store().timingSlack();
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return store().faults();
  }

  @Override
  protected Optional<OutsideActor> outsideActor() {
    return store().outsideActor();
  }

  @Override
  protected Optional<ClientLinks> links() {
    return store().links();
  }

  @Override
  protected Optional<StoreInspector> inspector() {
    return store().inspector();
  }

  @Override
  protected Optional<String> storeUri() {
    return store().sharedAcrossProcesses() ? Optional.of(store().uri()) : Optional.empty();
  }

  @Override
  protected void crash(LockClient client) {
    store().crash(client);
  }

  @Override
  protected Duration storeTimeout() {
    return store().storeTimeout();
  }

  @Override
  protected Duration recoveryTime() {
    return store().recoveryTime();
  }
}
