package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.spi.StoreTiming;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract every lock store must pass: extend it with one small class per store.
 *
 * <pre>{@code
 * class RedisLockContractTest extends LockStoreContract {
 *   protected LockClient newClient(LockOptions options) {
 *     return LockClient.open("redis://127.0.0.1:" + redis.port(), options);
 *   }
 * }
 * }</pre>
 *
 * <p>The rules come from one interface per promise group ({@link MutualExclusionRules} …, listed in
 * {@link Rule}); each is a test method named by its rule ({@code rule_3_7_…}) and shown with its
 * sentence. Because they are methods of your class, test reports name your class. A rule that needs
 * a capability the store does not declare, or a hook this class does not provide, is skipped with a
 * reason that names it ({@link Requires}); another rule then checks that the feature is refused.
 * Every test uses its own lock names and closes every client it made.
 */
@ExtendWith(RequiresCondition.class)
@TestMethodOrder(RuleOrder.class)
@DisplayNameGeneration(RuleNames.class)
public abstract class LockStoreContract
    implements MutualExclusionRules,
        OwnershipRules,
        ExpiryRules,
        RenewalRules,
        FencingRules,
        ReentrancyRules,
        WaitingRules,
        ReadWriteRules,
        MultiLockRules,
        BadInputRules,
        StoreFailureRules,
        StoreSpiRules,
        ProcessRules,
        EngineUnderFaultsRules,
        FootprintRules {

  private static final Map<Class<?>, StoreProfile> PROFILES = new ConcurrentHashMap<>();

  private Kit kit;

  /**
   * A new client with {@code options}: a separate connection, standing for a separate process. The
   * kit closes every client it creates.
   */
  protected abstract LockClient newClient(LockOptions options);

  /** A new client with default options. */
  protected LockClient newClient() {
    return newClient(LockOptions.defaults());
  }

  /**
   * A lease short enough for the expiry rules to run quickly and long enough for the store to hold
   * it reliably (a few store round trips). Default 600 ms; it is raised to the store's minimum
   * lease and rounded up to its granularity. For SESSION_BOUND stores make it the session timeout.
   */
  protected Duration shortLease() {
    return Duration.ofMillis(600);
  }

  /**
   * How late the store may free an expired lock or wake a waiter beyond what it promised: the bound
   * in "within lease + bound". Default 1 s (these machines are small and noisy).
   */
  protected Duration timingSlack() {
    return Duration.ofSeconds(1);
  }

  /** The store's fault injector, if the fixture can pause, kill and restart it. */
  protected Optional<StoreFaults> faults() {
    return Optional.empty();
  }

  /**
   * The store's outside actor, if the fixture can change the store behind the clients' backs (an
   * operator deleting a lock).
   */
  protected Optional<OutsideActor> outsideActor() {
    return Optional.empty();
  }

  /**
   * Clients whose network path to the store can be cut, if the fixture can make them (each through
   * a proxy of its own).
   */
  protected Optional<ClientLinks> links() {
    return Optional.empty();
  }

  /**
   * The store's inspector, if the fixture can count what the store keeps and drop its idle state
   * (as an evicting cache would).
   */
  protected Optional<StoreInspector> inspector() {
    return Optional.empty();
  }

  /**
   * A URI another process can open the store with ({@code LockClient.open(uri)}), for the rules
   * whose holders are child JVMs (started with this JVM's class path). Empty when the store lives
   * in this process only.
   */
  protected Optional<String> storeUri() {
    return Optional.empty();
  }

  /**
   * Makes {@code client} behave like a process that died while holding locks: no release, no
   * renewal, connection gone. The default works for every client made by {@code LockClient.open} or
   * {@code LockClient.of}.
   */
  protected void crash(LockClient client) {
    if (client instanceof EngineClient) {
      ((EngineClient) client).crash();
    } else {
      throw new IllegalStateException(
          "cannot crash a " + client.getClass().getName() + "; override crash(LockClient)");
    }
  }

  /**
   * The shortest lease and clock granularity of the store behind {@code client}. The default reads
   * them from the engine client's store; override it for clients the engine did not make.
   */
  protected StoreTiming storeTiming(LockClient client) {
    return EngineAccess.timing(client);
  }

  /**
   * The longest a store operation may block on a paused or dead store before it throws {@code
   * LockStoreException} (the store's command or connect timeout). Default 2 s; the store-failure
   * rules allow this plus {@link #timingSlack()}.
   */
  protected Duration storeTimeout() {
    return Duration.ofSeconds(2);
  }

  /** How long a client may take to reconnect by itself after the store is back. Default 10 s. */
  protected Duration recoveryTime() {
    return Duration.ofSeconds(10);
  }

  /** How many rounds each thread of the contention rules runs. Default 25. */
  protected int contentionRounds() {
    return 25;
  }

  @BeforeEach
  final void startKitTest() {
    kit = new Kit(this);
  }

  @AfterEach
  final void finishKitTest() throws InterruptedException {
    kit.close();
  }

  @Override
  public final Kit kit() {
    return kit;
  }

  /** The capabilities and hooks of the store under test, learned once per contract class. */
  final StoreProfile profile() {
    return PROFILES.computeIfAbsent(getClass(), k -> learnProfile());
  }

  private StoreProfile learnProfile() {
    Set<KitHook> hooks = EnumSet.noneOf(KitHook.class);
    faults().ifPresent(f -> hooks.add(KitHook.FAULTS));
    outsideActor().ifPresent(a -> hooks.add(KitHook.OUTSIDE_ACTOR));
    storeUri().ifPresent(u -> hooks.add(KitHook.STORE_URI));
    inspector().ifPresent(i -> hooks.add(KitHook.INSPECTOR));
    links().ifPresent(l -> hooks.add(KitHook.LINKS));
    try (LockClient probe = newClient(LockOptions.defaults())) {
      if (probe instanceof EngineClient) {
        hooks.add(KitHook.ENGINE_CLIENT);
      }
      return new StoreProfile(Set.copyOf(probe.capabilities()), Set.copyOf(hooks));
    }
  }

  /** A new client with default options, closed after the test (for store-specific rules). */
  protected final LockClient client() {
    return kit.client();
  }

  /** A new client with {@code options}, closed after the test. */
  protected final LockClient client(LockOptions options) {
    return kit.client(options);
  }

  /** A lock name unique to the running test. */
  protected final String lockName(String suffix) {
    return kit.name(suffix);
  }
}
