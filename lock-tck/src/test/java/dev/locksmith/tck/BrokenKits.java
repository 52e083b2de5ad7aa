package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockStore;
import dev.locksmith.tck.broken.AbandonedPlaceLockStore;
import dev.locksmith.tck.broken.BatchExtendsAnyHolderLockStore;
import dev.locksmith.tck.broken.BatchOutageAsNotHeldLockStore;
import dev.locksmith.tck.broken.CaseInsensitiveOwnerLockStore;
import dev.locksmith.tck.broken.ClientClockLockStore;
import dev.locksmith.tck.broken.ClientWideDowngradeLockStore;
import dev.locksmith.tck.broken.CollatedNameLockStore;
import dev.locksmith.tck.broken.ConcatenatedPrefixLockStore;
import dev.locksmith.tck.broken.CounterCreateRaceLockStore;
import dev.locksmith.tck.broken.CounterLockStore;
import dev.locksmith.tck.broken.DeletedRowTokenLockStore;
import dev.locksmith.tck.broken.DurableClaimOnMemoryTableLockStore;
import dev.locksmith.tck.broken.EternalWaitingMarkLockStore;
import dev.locksmith.tck.broken.ExpiredHoldStillOwnedLockStore;
import dev.locksmith.tck.broken.ExtendAddsLockStore;
import dev.locksmith.tck.broken.ExtendIgnoresReplyLockStore;
import dev.locksmith.tck.broken.ExtendKeepsAcquireLeaseLockStore;
import dev.locksmith.tck.broken.ForwardingLockStore;
import dev.locksmith.tck.broken.HashBucketLockStore;
import dev.locksmith.tck.broken.HintInSecondsLockStore;
import dev.locksmith.tck.broken.IgnoredKeyPrefixLockStore;
import dev.locksmith.tck.broken.InternalRetryLockStore;
import dev.locksmith.tck.broken.KeyValueLockStore;
import dev.locksmith.tck.broken.KeyValueSpace;
import dev.locksmith.tck.broken.Latin1NameLockStore;
import dev.locksmith.tck.broken.LocalReentrancyLockStore;
import dev.locksmith.tck.broken.LockTable;
import dev.locksmith.tck.broken.MillisAsSecondsLockStore;
import dev.locksmith.tck.broken.NestedAcquireKeepsExpiryLockStore;
import dev.locksmith.tck.broken.NestsOnExpiredRowLockStore;
import dev.locksmith.tck.broken.NewestFirstQueueLockStore;
import dev.locksmith.tck.broken.NoExpiryLockStore;
import dev.locksmith.tck.broken.NoOpWithdrawLockStore;
import dev.locksmith.tck.broken.NoWriterPreferenceLockStore;
import dev.locksmith.tck.broken.OutageAsBusyLockStore;
import dev.locksmith.tck.broken.OutageAsNotHeldLockStore;
import dev.locksmith.tck.broken.OwnerPrefixMatchLockStore;
import dev.locksmith.tck.broken.OwnerTruncatingLockStore;
import dev.locksmith.tck.broken.PerConnectionTokenLockStore;
import dev.locksmith.tck.broken.PerNameCounterLockStore;
import dev.locksmith.tck.broken.PlainDeleteLockStore;
import dev.locksmith.tck.broken.ReadHoldsNeverExpireLockStore;
import dev.locksmith.tck.broken.ReadIgnoresExpiryLockStore;
import dev.locksmith.tck.broken.ReadersLookFreeLockStore;
import dev.locksmith.tck.broken.ReleaseForgetsHandleLockStore;
import dev.locksmith.tck.broken.ReleaseIgnoresHoldCountLockStore;
import dev.locksmith.tck.broken.ReleaseIgnoresReplyLockStore;
import dev.locksmith.tck.broken.RenewalRetakesLockStore;
import dev.locksmith.tck.broken.SecondsTruncatingLockStore;
import dev.locksmith.tck.broken.SetThenExpireLockStore;
import dev.locksmith.tck.broken.SharedCounterLockStore;
import dev.locksmith.tck.broken.SharedReaderExpiryLockStore;
import dev.locksmith.tck.broken.SharedWriteRowLockStore;
import dev.locksmith.tck.broken.SilentPushLockStore;
import dev.locksmith.tck.broken.TableLockStore;
import dev.locksmith.tck.broken.TakeoverKeepsVersionLockStore;
import dev.locksmith.tck.broken.TinyRetryHintLockStore;
import dev.locksmith.tck.broken.TruncatedNameLockStore;
import dev.locksmith.tck.broken.UnownedDecrementLockStore;
import dev.locksmith.tck.broken.UnwatchedSubscriberLockStore;
import dev.locksmith.tck.broken.WriterIgnoresReadersLockStore;
import dev.locksmith.tck.fixture.MemFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The contract classes that run the kit against each broken store of {@code tck.broken} (and the
 * table store they derive from, as a positive control); {@link BrokenStoresTest} runs them and
 * asserts which rules fail.
 *
 * <p>Every kit has its own space, so that kits can run at the same time, and gives the kit every
 * hook its base store supports: faults (outage, restart) and an outside actor (deleting holds), so
 * that the fault rules judge the broken stores too. None has a store URI (the stores live in this
 * JVM), so the multi-process rules (13.x) are skipped for all of them.
 */
final class BrokenKits {

  private BrokenKits() {}

  // The bases: one per kind of space the broken stores work on.

  /**
   * {@code store} with the client's key prefix put before every name, unless the store already
   * claims one: the broken stores are built without a prefix (their defects lie elsewhere), while
   * one that claims a prefix must apply it itself.
   */
  static LockStore withPrefix(LockStore store, LockOptions options) {
    String prefix = options.keyPrefix().orElse("");
    if (prefix.isEmpty() || !store.keyPrefix().isEmpty()) {
      return store;
    }
    return new ForwardingLockStore(store, "prefixed") {
      @Override
      public String keyPrefix() {
        return prefix;
      }

      @Override
      protected LockKey storedKey(LockKey key) {
        return new LockKey(key.nameUnder(prefix), key.mode());
      }
    };
  }

  /** Broken stores over the toy Redis-like {@link KeyValueSpace} (exclusive locks only). */
  abstract static class OverKeyValueSpace extends LockStoreContract {
    private static final Map<Class<?>, KeyValueSpace> SPACES = new ConcurrentHashMap<>();

    /** The store under test, on {@code space}. */
    abstract LockStore store(KeyValueSpace space);

    final KeyValueSpace space() {
      return SPACES.computeIfAbsent(getClass(), k -> new KeyValueSpace());
    }

    @Override
    protected final LockClient newClient(LockOptions options) {
      return LockClient.of(withPrefix(store(space()), options), options);
    }

    @Override
    protected final Optional<StoreFaults> faults() {
      KeyValueSpace space = space();
      return Optional.of(new OutageFaults(space::startOutage, space::endOutage, space::restart));
    }

    @Override
    protected final Optional<OutsideActor> outsideActor() {
      KeyValueSpace space = space();
      return Optional.of((name, mode) -> space.delete(KeyValueLockStore.keyFor(name)));
    }

    /**
     * Keys are {@code kind:<name>}: those whose name lies under the prefix count, and so do keys
     * without a name (state every lock shares, such as one counter). Idle are the keys without an
     * expiry: counters and marks, never a lock's lease.
     */
    @Override
    protected final Optional<StoreInspector> inspector() {
      KeyValueSpace space = space();
      return Optional.of(
          new StoreInspector() {
            @Override
            public long entries(String keyPrefix) {
              return space.keys().stream().filter(k -> mine(k, keyPrefix)).count();
            }

            @Override
            public void evictIdle(String keyPrefix) {
              for (String k : space.keys()) {
                if (mine(k, keyPrefix) && !space.expiring(k)) {
                  space.delete(k);
                }
              }
            }
          });
    }

    private static boolean mine(String key, String keyPrefix) {
      int colon = key.indexOf(':');
      return colon < 0 || underPrefix(key.substring(colon + 1), keyPrefix);
    }
  }

  /** Whether a name as {@link #withPrefix} stores it belongs to clients with {@code keyPrefix}. */
  static boolean underPrefix(String storedName, String keyPrefix) {
    int separator = storedName.indexOf(LockKey.PREFIX_SEPARATOR);
    return keyPrefix.isEmpty()
        ? separator < 0
        : separator == keyPrefix.length() && storedName.startsWith(keyPrefix);
  }

  /** Broken stores in front of the reference {@code mem:} store, each on a space of its own. */
  abstract static class OverMemSpace extends LockStoreContract {

    /** The store under test, on {@code space}, for a client with {@code options}. */
    abstract LockStore store(MemLockSpace space, LockOptions options);

    final MemLockSpace space() {
      return MemLockSpace.named("broken-" + getClass().getSimpleName());
    }

    @Override
    protected final LockClient newClient(LockOptions options) {
      return LockClient.of(withPrefix(store(space(), options), options), options);
    }

    @Override
    protected final Optional<StoreFaults> faults() {
      return Optional.of(MemFixture.faultsOf(space()));
    }

    @Override
    protected final Optional<OutsideActor> outsideActor() {
      // The actor deletes what the store wrote, so it names the lock as the store encodes it.
      return Optional.of(
          (name, mode) -> {
            LockStore store = store(space(), LockOptions.defaults());
            String stored =
                store instanceof ForwardingLockStore
                    ? ((ForwardingLockStore) store).nameInStore(name, mode)
                    : name;
            space().deleteHolds(stored, mode);
          });
    }

    @Override
    protected final Optional<StoreInspector> inspector() {
      return Optional.of(MemFixture.inspectorOf(space()));
    }

    /** Cutting a client loses its connection to the space, through the broken driver's layers. */
    @Override
    protected final Optional<ClientLinks> links() {
      return Optional.of(
          new ClientLinks() {
            @Override
            public LockClient open(LockOptions options) {
              return newClient(options);
            }

            @Override
            public void cut(LockClient client) {
              LockStore store = ((EngineClient) client).store();
              if (store instanceof ForwardingLockStore) {
                ((ForwardingLockStore) store).disconnect();
              } else {
                ((MemLockStore) store).disconnect();
              }
            }
          });
    }
  }

  /** Broken stores over a JDBC-style {@link LockTable}, each on a table of its own. */
  abstract static class OverLockTable extends LockStoreContract {
    private static final Map<Class<?>, LockTable> TABLES = new ConcurrentHashMap<>();

    /** The store under test, on {@code table}. */
    abstract LockStore store(LockTable table);

    /** The database the store runs on; durable unless a kit says otherwise. */
    LockTable newTable() {
      return LockTable.durable();
    }

    final LockTable table() {
      return TABLES.computeIfAbsent(getClass(), k -> newTable());
    }

    @Override
    protected final LockClient newClient(LockOptions options) {
      return LockClient.of(withPrefix(store(table()), options), options);
    }

    @Override
    protected final Optional<StoreFaults> faults() {
      LockTable table = table();
      return Optional.of(new OutageFaults(table::startOutage, table::endOutage, table::restart));
    }

    @Override
    protected final Optional<OutsideActor> outsideActor() {
      // The actor knows the store's rows (which kind column a mode uses).
      return Optional.of((name, mode) -> ((TableLockStore) store(table())).deleteHolds(name, mode));
    }

    @Override
    protected final Optional<StoreInspector> inspector() {
      LockTable table = table();
      return Optional.of(
          new StoreInspector() {
            @Override
            public long entries(String keyPrefix) {
              return table.rows(name -> underPrefix(name, keyPrefix));
            }

            @Override
            public void evictIdle(String keyPrefix) {
              table.dropIdle(name -> underPrefix(name, keyPrefix));
            }

            @Override
            public Duration cleanupDelay() {
              return LockTable.CLEANUP_DELAY.plusMillis(200);
            }
          });
    }
  }

  /** Pause is an outage; kill is an outage plus a restart of the space (losing what it loses). */
  static final class OutageFaults implements StoreFaults {
    private final Runnable startOutage;
    private final Runnable endOutage;
    private final Runnable restart;

    OutageFaults(Runnable startOutage, Runnable endOutage, Runnable restart) {
      this.startOutage = startOutage;
      this.endOutage = endOutage;
      this.restart = restart;
    }

    @Override
    public void pause() {
      startOutage.run();
    }

    @Override
    public void resume() {
      endOutage.run();
    }

    @Override
    public void kill() {
      startOutage.run();
      restart.run();
    }

    @Override
    public void restart() {
      endOutage.run();
    }
  }

  // The positive control.

  /** The correct table store the broken table stores derive from. */
  static final class TableKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new TableLockStore(table);
    }
  }

  // The five classic recipes over the key-value space.

  /** Release by plain DEL. */
  static final class PlainDeleteKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new PlainDeleteLockStore(space);
    }
  }

  /** SETNX, then EXPIRE as a second step. */
  static final class SetThenExpireKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new SetThenExpireLockStore(space);
    }
  }

  /** GETSET timestamps on the clients' clocks; every second client's clock is 5 minutes ahead. */
  static final class ClientClockKit extends OverKeyValueSpace {
    private final AtomicInteger clients = new AtomicInteger();

    @Override
    LockStore store(KeyValueSpace space) {
      Duration skew = clients.getAndIncrement() % 2 == 0 ? Duration.ZERO : Duration.ofMinutes(5);
      return new ClientClockLockStore(space, Clock.offset(Clock.systemUTC(), skew));
    }
  }

  /** INCR == 1 wins. */
  static final class CounterKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new CounterLockStore(space);
    }
  }

  /** Owner-checked, never expires. */
  static final class NoExpiryKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new NoExpiryLockStore(space);
    }
  }

  /** Owner-checked lease lock, a token counter per name. */
  static final class PerNameCounterKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new PerNameCounterLockStore(space);
    }
  }

  /** Owner-checked lease lock, one token counter that restarts at 1 when lost. */
  static final class SharedCounterKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new SharedCounterLockStore(space);
    }
  }

  /** Owner-checked lease lock whose token draw fails when two attempts create the counter. */
  static final class CounterCreateRaceKit extends OverKeyValueSpace {
    @Override
    LockStore store(KeyValueSpace space) {
      return new CounterCreateRaceLockStore(space);
    }
  }

  // Driver defects in front of the reference mem: store.

  /** A local lock per bucket of 256 name hashes. */
  static final class HashBucketKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new HashBucketLockStore(space);
    }
  }

  /** The key prefix put before a name without a separator. */
  static final class ConcatenatedPrefixKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ConcatenatedPrefixLockStore(space, options.keyPrefix().orElse(""));
    }
  }

  /** A renewal that finds the hold gone takes the lock again. */
  static final class RenewalRetakesKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new RenewalRetakesLockStore(space);
    }
  }

  /** Release forgets the hold's handle before the store has released it. */
  static final class ReleaseForgetsHandleKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ReleaseForgetsHandleLockStore(space);
    }
  }

  /** Release notifications over a connection whose loss nobody watches. */
  static final class UnwatchedSubscriberKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new UnwatchedSubscriberLockStore(space);
    }
  }

  /** Leases rounded down to whole seconds. */
  static final class SecondsTruncatingKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new SecondsTruncatingLockStore(space);
    }
  }

  /** The lease in milliseconds sent as seconds. */
  static final class MillisAsSecondsKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new MillisAsSecondsLockStore(space);
    }
  }

  /** Extend adds to what is left. */
  static final class ExtendAddsKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ExtendAddsLockStore(space);
    }
  }

  /** Extend renews with the acquire's lease. */
  static final class ExtendKeepsAcquireLeaseKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ExtendKeepsAcquireLeaseLockStore(space);
    }
  }

  /** Release and extend accept a prefix of the holder's id. */
  static final class OwnerPrefixMatchKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new OwnerPrefixMatchLockStore(space);
    }
  }

  /** Release answers RELEASED when nothing was held. */
  static final class ReleaseIgnoresReplyKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ReleaseIgnoresReplyLockStore(space);
    }
  }

  /** Extend answers true when nothing was held. */
  static final class ExtendIgnoresReplyKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ExtendIgnoresReplyLockStore(space);
    }
  }

  /** A failed batch renewal answers false for every extension. */
  static final class BatchOutageAsNotHeldKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new BatchOutageAsNotHeldLockStore(space);
    }
  }

  /** Batch renewal extends whoever holds each key. */
  static final class BatchExtendsAnyHolderKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new BatchExtendsAnyHolderLockStore(space);
    }
  }

  /** Tokens counted per connection. */
  static final class PerConnectionTokenKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new PerConnectionTokenLockStore(space);
    }
  }

  /** Read() shows readers as free. */
  static final class ReadersLookFreeKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ReadersLookFreeLockStore(space);
    }
  }

  /** Read holds without expiry. */
  static final class ReadHoldsNeverExpireKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ReadHoldsNeverExpireLockStore(space);
    }
  }

  /** A failed acquire answered busy. */
  static final class OutageAsBusyKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new OutageAsBusyLockStore(space);
    }
  }

  /** A failed extend, release or read answered not held. */
  static final class OutageAsNotHeldKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new OutageAsNotHeldLockStore(space);
    }
  }

  /** Nested holds counted in the connection. */
  static final class LocalReentrancyKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new LocalReentrancyLockStore(space);
    }
  }

  /** Names cut to 250 bytes. */
  static final class TruncatedNameKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new TruncatedNameLockStore(space);
    }
  }

  /** Names compared case-, accent- and trailing-space-insensitively. */
  static final class CollatedNameKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new CollatedNameLockStore(space);
    }
  }

  /** Names stored in Latin-1. */
  static final class Latin1NameKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new Latin1NameLockStore(space);
    }
  }

  /** Retry hint in milliseconds read as seconds. */
  static final class HintInSecondsKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new HintInSecondsLockStore(space);
    }
  }

  /** Retry hint in seconds read as milliseconds. */
  static final class TinyRetryHintKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new TinyRetryHintLockStore(space);
    }
  }

  /** Release push declared, never delivered. */
  static final class SilentPushKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new SilentPushLockStore(space);
    }
  }

  /** Withdraw does nothing. */
  static final class NoOpWithdrawKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new NoOpWithdrawLockStore(space);
    }
  }

  /** No waiting-writer mark. */
  static final class NoWriterPreferenceKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new NoWriterPreferenceLockStore(space);
    }
  }

  /** Owners compared case-insensitively. */
  static final class CaseInsensitiveOwnerKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new CaseInsensitiveOwnerLockStore(space);
    }
  }

  /** Owners cut to 16 characters. */
  static final class OwnerTruncatingKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new OwnerTruncatingLockStore(space);
    }
  }

  /** TryAcquire retries inside the store. */
  static final class InternalRetryKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new InternalRetryLockStore(space);
    }
  }

  /** Release ends every nested hold at once. */
  static final class ReleaseIgnoresHoldCountKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new ReleaseIgnoresHoldCountLockStore(space);
    }
  }

  /** The key prefix reported, never applied. */
  /** A queue that serves the newest waiter first. */
  static final class NewestFirstQueueKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new NewestFirstQueueLockStore(space);
    }
  }

  /** A waiter that gives up leaves its place in the queue. */
  static final class AbandonedPlaceKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new AbandonedPlaceLockStore(space);
    }
  }

  static final class IgnoredKeyPrefixKit extends OverMemSpace {
    @Override
    LockStore store(MemLockSpace space, LockOptions options) {
      return new IgnoredKeyPrefixLockStore(space, options.keyPrefix().orElse(""));
    }
  }

  // Statement defects of the table store.

  /** Re-acquire after the own expiry nests on the dead row. */
  static final class NestsOnExpiredRowKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new NestsOnExpiredRowLockStore(table);
    }
  }

  /** A takeover keeps the expired holder's token. */
  static final class TakeoverKeepsVersionKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new TakeoverKeepsVersionLockStore(table);
    }
  }

  /** Release decrements whoever holds the lock. */
  static final class UnownedDecrementKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new UnownedDecrementLockStore(table);
    }
  }

  /** Writers do not wait for readers. */
  static final class WriterIgnoresReadersKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new WriterIgnoresReadersLockStore(table);
    }
  }

  /** A writer lets in readers of its whole client. */
  static final class ClientWideDowngradeKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new ClientWideDowngradeLockStore(table);
    }
  }

  /** A nested acquire does not renew. */
  static final class NestedAcquireKeepsExpiryKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new NestedAcquireKeepsExpiryLockStore(table);
    }
  }

  /** Extend and release ignore expiry. */
  static final class ExpiredHoldStillOwnedKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new ExpiredHoldStillOwnedLockStore(table);
    }
  }

  /** Read() ignores expiry. */
  static final class ReadIgnoresExpiryKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new ReadIgnoresExpiryLockStore(table);
    }
  }

  /** Release deletes the row whose version is the token. */
  static final class DeletedRowTokenKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new DeletedRowTokenLockStore(table);
    }
  }

  /** Exclusive and write locks share a row. */
  static final class SharedWriteRowKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new SharedWriteRowLockStore(table);
    }
  }

  /** A reader's extend renews every reader. */
  static final class SharedReaderExpiryKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new SharedReaderExpiryLockStore(table);
    }
  }

  /** Waiting-writer marks never expire. */
  static final class EternalWaitingMarkKit extends OverLockTable {
    @Override
    LockStore store(LockTable table) {
      return new EternalWaitingMarkLockStore(table);
    }
  }

  /** DURABLE_FENCING declared on an in-memory database. */
  static final class DurableClaimOnMemoryTableKit extends OverLockTable {
    @Override
    LockTable newTable() {
      return LockTable.inMemory();
    }

    @Override
    LockStore store(LockTable table) {
      return new DurableClaimOnMemoryTableLockStore(table);
    }
  }
}
