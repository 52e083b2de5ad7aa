package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The store SPI driven directly, with explicit owners, the way the Reactive Streams TCK drives a
 * {@code Publisher}: the engine's own checks (validity on its clock, fresh owners, retries) cannot
 * hide a store's defect here.
 */
public interface StoreSpiRules extends KitTest {

  /** An owner id shaped like the engine's: {@code <prefix>/<client>/<n>}. */
  private static String owner(Kit kit, String who) {
    return "tck-" + who + "/" + kit.name("o") + "/1";
  }

  /**
   * The hold kind whose attempt must be refused while {@code kind} is held by another owner: a
   * second reader would be let in, so a reader's rivals are writers.
   */
  private static LockKey rivalKey(String name, HoldKind kind) {
    return new LockKey(name, kind == HoldKind.EXCLUSIVE ? LockMode.EXCLUSIVE : LockMode.WRITE);
  }

  /** Clears the waiting-writer mark a refused write attempt may leave, as the engine does. */
  private static void withdrawIfWriter(LockStore store, LockKey key, String owner)
      throws Exception {
    if (key.mode() == LockMode.WRITE) {
      store.readWrite().orElseThrow().withdraw(key, owner);
    }
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_12_1_acquireReadReleaseRoundTrip() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockStore store = kit.store(a);
    Duration lease = kit.expiryLease(a).multipliedBy(10);
    for (HoldKind kind : kit.kinds(a)) {
      LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
      String owner = owner(kit, "a");
      Acquisition acquired = store.tryAcquire(key, owner, lease);
      assertThat(acquired.isAcquired()).as("%s acquire of a free lock", kind).isTrue();
      assertThat(acquired.holds()).as("%s holds after a first acquire", kind).isEqualTo(1);
      LockState state = store.read(key);
      assertThat(state.locked()).as("%s read() of a held lock", kind).isTrue();
      if (kind == HoldKind.READ) {
        assertThat(state.holds()).as("readers in read()").isEqualTo(1);
      } else {
        assertThat(state.owner()).as("%s owner in read()", kind).isEqualTo(owner);
        assertThat(state.holds()).as("%s holds in read()", kind).isEqualTo(1);
      }
      assertThat(store.release(key, owner))
          .as("%s release", kind)
          .isEqualTo(ReleaseOutcome.RELEASED);
      assertThat(store.read(key).locked()).as("%s read() after release", kind).isFalse();
    }
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_12_2_everyOtherOwnerIsRefused() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration lease = kit.expiryLease(a).multipliedBy(10);
    String holder = owner(kit, "holder");
    List<String> others =
        List.of(
            holder + "0",
            holder + "x",
            holder + " ",
            holder.substring(0, holder.length() - 1),
            holder.substring(0, holder.length() - 1) + "2",
            holder.toUpperCase(java.util.Locale.ROOT),
            "x" + holder,
            owner(kit, "other"));
    for (HoldKind kind : kit.kinds(a)) {
      LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
      LockKey rival = rivalKey(key.name(), kind);
      assertThat(kit.store(a).tryAcquire(key, holder, lease).isAcquired()).isTrue();
      for (LockStore store : List.of(kit.store(a), kit.store(b))) {
        for (String other : others) {
          assertThat(store.tryAcquire(rival, other, lease).isAcquired())
              .as("%s attempt by owner '%s' while '%s' holds %s", rival.mode(), other, holder, kind)
              .isFalse();
          withdrawIfWriter(store, rival, other);
          assertThat(store.release(key, other))
              .as("%s release by owner '%s'", kind, other)
              .isEqualTo(ReleaseOutcome.NOT_HELD);
          assertThat(store.extend(key, other, lease))
              .as("%s extend by owner '%s'", kind, other)
              .isFalse();
        }
      }
      LockState state = kit.store(b).read(key);
      assertThat(state.locked()).as("%s hold after every foreign attempt", kind).isTrue();
      if (kind != HoldKind.READ) {
        assertThat(state.owner())
            .as("%s owner after every foreign attempt", kind)
            .isEqualTo(holder);
      }
      assertThat(kit.store(a).release(key, holder))
          .as("the holder's release after every foreign attempt")
          .isEqualTo(ReleaseOutcome.RELEASED);
    }
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_3_expiredOwnerIsNotHeld() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    kit.forEveryKind(
        a,
        kind -> {
          LockStore store = kit.store(a);
          LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
          String owner = owner(kit, "old");
          assertThat(store.tryAcquire(key, owner, lease).isAcquired()).isTrue();
          Thread.sleep(lease.plus(kit.slack()).toMillis());
          assertThat(store.extend(key, owner, lease))
              .as("%s extend by an owner whose hold expired, with no takeover", kind)
              .isFalse();
          assertThat(store.release(key, owner))
              .as("%s release by an owner whose hold expired, with no takeover", kind)
              .isEqualTo(ReleaseOutcome.NOT_HELD);
          assertThat(store.read(key).locked()).as("%s read() after expiry", kind).isFalse();
        });
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_4_expiredOwnerCannotTouchRival() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration lease = kit.expiryLease(a);
    kit.forEveryKind(
        a,
        kind -> {
          LockStore storeA = kit.store(a);
          LockStore storeB = kit.store(b);
          LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
          LockKey rival = new LockKey(key.name(), kind.rival().mode());
          assertThat(storeA.tryAcquire(key, "tck-old-owner", lease).isAcquired()).isTrue();
          await()
              .atMost(lease.plus(kit.slack()))
              .pollInterval(Duration.ofMillis(10))
              .until(
                  () ->
                      storeB
                          .tryAcquire(rival, "tck-new-owner", Duration.ofSeconds(30))
                          .isAcquired());
          assertThat(storeA.release(key, "tck-old-owner"))
              .as("%s release by the owner whose hold expired", kind)
              .isEqualTo(ReleaseOutcome.NOT_HELD);
          assertThat(storeA.extend(key, "tck-old-owner", lease))
              .as("%s extend by the owner whose hold expired", kind)
              .isFalse();
          assertThat(storeB.read(rival).locked()).as("the rival's hold").isTrue();
          assertThat(kind.of(kit.client(), key.name()).tryAcquire()).as("the lock").isEmpty();
          assertThat(storeB.release(rival, "tck-new-owner")).isEqualTo(ReleaseOutcome.RELEASED);
        });
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_5_reacquireAfterOwnExpiryIsFresh() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a);
    boolean fencing = a.capabilities().contains(Capability.FENCING);
    kit.forEveryKind(
        a,
        kind -> {
          LockStore store = kit.store(a);
          LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
          String owner = owner(kit, "same");
          Acquisition first = store.tryAcquire(key, owner, lease);
          assertThat(first.isAcquired()).isTrue();
          Thread.sleep(lease.plus(kit.slack()).toMillis());
          Acquisition again = store.tryAcquire(key, owner, lease.multipliedBy(10));
          assertThat(again.isAcquired()).as("%s acquire after the own hold expired", kind).isTrue();
          assertThat(again.holds())
              .as("%s holds of a fresh hold (not nested on the expired one)", kind)
              .isEqualTo(1);
          if (fencing && kind != HoldKind.READ) {
            assertThat(again.token())
                .as("%s token of the fresh hold", kind)
                .isGreaterThan(first.token());
          }
          assertThat(store.release(key, owner))
              .as("%s release of the fresh hold", kind)
              .isEqualTo(ReleaseOutcome.RELEASED);
        });
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_6_extendSetsTheLease() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration shortLease = kit.expiryLease(a);
    Duration longLease = shortLease.plus(kit.slack()).multipliedBy(3);
    kit.forEveryKind(
        a,
        kind -> {
          LockStore store = kit.store(a);
          LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
          LockKey rival = rivalKey(key.name(), kind);
          String owner = owner(kit, "holder");
          assertThat(store.tryAcquire(key, owner, longLease).isAcquired()).isTrue();
          long sent = System.nanoTime();
          assertThat(store.extend(key, owner, shortLease)).as("%s extend", kind).isTrue();
          // Set, the hold ends a short lease from now; added, it would last beyond the long one.
          await()
              .atMost(shortLease.plus(kit.slack()))
              .pollInterval(Duration.ofMillis(10))
              .until(() -> kit.store(b).tryAcquire(rival, "tck-rival", longLease).isAcquired());
          assertThat(Duration.ofNanos(System.nanoTime() - sent))
              .as("when a rival got the %s lock whose lease was set to %s", kind, shortLease)
              .isLessThan(longLease);
          assertThat(kit.store(b).release(rival, "tck-rival")).isEqualTo(ReleaseOutcome.RELEASED);
        });
  }

  @Test
  @Requires(value = Capability.READ_WRITE, hooks = KitHook.ENGINE_CLIENT)
  default void rule_12_7_readersShowAsHeld() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockStore store = kit.store(a);
    LockKey key = new LockKey(kit.name("rw"), LockMode.READ);
    Duration lease = kit.expiryLease(a).multipliedBy(10);
    LockStore other = kit.store(kit.client());
    assertThat(store.tryAcquire(key, owner(kit, "r1"), lease).isAcquired()).isTrue();
    assertThat(other.tryAcquire(key, owner(kit, "r2"), lease).isAcquired()).isTrue();
    LockState state = kit.store(kit.client()).read(key);
    assertThat(state.locked()).as("read() of a lock held by two readers").isTrue();
    assertThat(state.holds()).as("readers in read()").isEqualTo(2);
    assertThat(kit.client().readWriteLock(key.name()).readLock().isLocked())
        .as("isLocked() of the read side")
        .isTrue();
    // Each reader leaves through its own connection: a session-bound hold belongs to its session.
    store.release(key, owner(kit, "r1"));
    other.release(key, owner(kit, "r2"));
    assertThat(store.read(key).locked()).as("read() after both readers left").isFalse();
  }

  @Test
  @Requires(hooks = {KitHook.ENGINE_CLIENT, KitHook.FAULTS})
  default void rule_12_8_outageAnswersAreExceptions() throws Exception {
    Kit kit = kit();
    StoreFaults faults = kit.faults();
    LockClient a = kit.client();
    LockStore store = kit.store(a);
    Duration lease = kit.expiryLease(a).multipliedBy(10);
    String owner = owner(kit, "holder");
    Map<HoldKind, LockKey> held = new EnumMap<>(HoldKind.class);
    for (HoldKind kind : kit.kinds(a)) {
      LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
      assertThat(store.tryAcquire(key, owner, lease).isAcquired()).isTrue();
      held.put(kind, key);
    }
    faults.kill();
    try {
      held.forEach(
          (kind, key) -> {
            LockKey rival = rivalKey(key.name(), kind);
            LockKey free = new LockKey(kit.name("free-" + kind), kind.mode());
            assertThatThrownBy(() -> store.tryAcquire(rival, "tck-other", lease))
                .as("%s tryAcquire of a held lock during an outage (never busy)", kind)
                .isInstanceOf(Exception.class);
            assertThatThrownBy(() -> store.tryAcquire(free, "tck-other", lease))
                .as("%s tryAcquire of a free lock during an outage (never acquired)", kind)
                .isInstanceOf(Exception.class);
            assertThatThrownBy(() -> store.extend(key, owner, lease))
                .as("%s extend during an outage (never true or false)", kind)
                .isInstanceOf(Exception.class);
            assertThatThrownBy(
                    () -> store.extendAll(List.of(new LeaseExtension(key, owner, lease))))
                .as("%s extendAll during an outage (never true or false)", kind)
                .isInstanceOf(Exception.class);
            assertThatThrownBy(() -> store.read(key))
                .as("%s read during an outage (never FREE or held)", kind)
                .isInstanceOf(Exception.class);
            assertThatThrownBy(() -> store.release(key, owner))
                .as("%s release during an outage (never RELEASED or NOT_HELD)", kind)
                .isInstanceOf(Exception.class);
          });
    } finally {
      faults.restart();
    }
    await()
        .atMost(kit.recoveryTime())
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> store.read(new LockKey(kit.name("after"), LockMode.EXCLUSIVE)) != null);
    for (LockKey key : held.values()) {
      store.release(key, owner);
    }
  }

  @Test
  default void rule_12_9_longNamesDifferingAtOneEndAreIndependent() {
    Kit kit = kit();
    String base = kit.name("");
    int asciiPad = 255 - base.length();
    List<String> names = new ArrayList<>();
    names.add(base + "n".repeat(asciiPad) + "a");
    names.add(base + "n".repeat(asciiPad) + "b");
    names.add("a" + "n".repeat(asciiPad) + base);
    names.add("b" + "n".repeat(asciiPad) + base);
    // 256 bytes of UTF-8: the base, then three-byte characters, then two ASCII letters.
    int euros = (254 - base.length()) / 3;
    String multibyte = base + "€".repeat(euros) + "x".repeat(254 - base.length() - 3 * euros);
    names.add(multibyte + "aa");
    names.add(multibyte + "ab");
    List<Lease> held = new ArrayList<>();
    for (String n : names) {
      Optional<Lease> l = kit.client().lock(n).tryAcquire();
      assertThat(l)
          .as("a %d-character name while the similar long names are held", n.length())
          .isPresent();
      held.add(l.get());
    }
    for (String n : names) {
      assertThat(kit.client().lock(n).tryAcquire()).as("a held long name").isEmpty();
    }
    held.forEach(Lease::release);
  }

  @Test
  @Requires(value = Capability.REENTRANCY, hooks = KitHook.ENGINE_CLIENT)
  default void rule_12_10_nestedAcquireAddsAHold() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration shortLease = kit.expiryLease(a);
    boolean expires = Kit.expires(a);
    kit.forEveryKind(
        a,
        kind -> {
          LockStore store = kit.store(a);
          LockKey key = new LockKey(kit.name("x-" + kind), kind.mode());
          String owner = owner(kit, "nested");
          Acquisition first = store.tryAcquire(key, owner, shortLease);
          Acquisition second = store.tryAcquire(key, owner, shortLease.multipliedBy(20));
          assertThat(second.isAcquired()).as("%s nested acquire", kind).isTrue();
          assertThat(second.holds()).as("%s holds after a nested acquire", kind).isEqualTo(2);
          assertThat(second.token())
              .as("%s token of the nested hold", kind)
              .isEqualTo(first.token());
          if (expires) {
            // The nested acquire renewed the hold with its own, longer lease.
            Thread.sleep(shortLease.plus(kit.slack()).toMillis());
            assertThat(
                    kit.store(b)
                        .tryAcquire(rivalKey(key.name(), kind), "tck-rival", shortLease)
                        .isAcquired())
                .as("a rival after the first lease ran out, the nested acquire's did not")
                .isFalse();
            withdrawIfWriter(kit.store(b), rivalKey(key.name(), kind), "tck-rival");
          }
          assertThat(store.release(key, owner))
              .as("%s release of one of two holds", kind)
              .isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
          assertThat(store.read(key).locked()).as("%s with one hold left", kind).isTrue();
          assertThat(store.release(key, owner))
              .as("%s release of the last hold", kind)
              .isEqualTo(ReleaseOutcome.RELEASED);
        });
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT)
  default void rule_12_11_retryHintWithinTheLease() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    Duration lease = kit.expiryLease(a).multipliedBy(3);
    LockKey key = new LockKey(kit.name("x"), LockMode.EXCLUSIVE);
    long start = System.nanoTime();
    assertThat(kit.store(a).tryAcquire(key, owner(kit, "holder"), lease).isAcquired()).isTrue();
    Acquisition busy = kit.store(kit.client()).tryAcquire(key, owner(kit, "rival"), lease);
    Duration left = lease.minusNanos(System.nanoTime() - start);
    assertThat(busy.isAcquired()).isFalse();
    if (busy.retryAfter() != null) {
      Duration granularity = kit.timing(a).granularity();
      assertThat(busy.retryAfter())
          .as("the retry hint of a lock held for %s", lease)
          .isLessThanOrEqualTo(lease.plus(granularity));
      // A hint far below what is left makes every waiter poll the store in a tight loop (the
      // engine never pauses longer than the hint): a TTL in seconds read as milliseconds.
      assertThat(busy.retryAfter())
          .as("the retry hint of a lock with %s of its lease left", left)
          .isGreaterThanOrEqualTo(left.minus(granularity).minus(kit.slack()));
    }
    kit.store(a).release(key, owner(kit, "holder"));
  }

  @Test
  @Requires(value = Capability.READ_WRITE, hooks = KitHook.ENGINE_CLIENT)
  default void rule_12_12_withdrawClearsTheWaitingWriter() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockStore store = kit.store(a);
    Duration lease = kit.expiryLease(a).multipliedBy(20);
    LockKey read = new LockKey(kit.name("rw"), LockMode.READ);
    LockKey write = new LockKey(read.name(), LockMode.WRITE);
    assertThat(store.tryAcquire(read, owner(kit, "r1"), lease).isAcquired()).isTrue();
    LockStore writerStore = kit.store(kit.client());
    assertThat(writerStore.tryAcquire(write, owner(kit, "w"), lease).isAcquired())
        .as("a writer while a reader holds")
        .isFalse();
    if (store.waitQueue().isEmpty()) {
      // A polling writer's place is its mark; a store with a queue keeps the place in the queue
      // (enqueue) instead, and its tryAcquire leaves nothing.
      assertThat(kit.store(kit.client()).tryAcquire(read, owner(kit, "r3"), lease).isAcquired())
          .as("a new reader after a writer found readers, before it withdrew")
          .isFalse();
    }
    writerStore.readWrite().orElseThrow().withdraw(write, owner(kit, "w"));
    assertThat(kit.store(kit.client()).tryAcquire(read, owner(kit, "r2"), lease).isAcquired())
        .as("a new reader once the writer that found readers withdrew")
        .isTrue();
    store.release(read, owner(kit, "r1"));
    store.release(read, owner(kit, "r2"));
  }

  @Test
  @Requires(value = Capability.READ_WRITE, hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_13_eachReaderExpiresOnItsOwnLease() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockStore store = kit.store(a);
    Duration lease = kit.expiryLease(a);
    LockKey read = new LockKey(kit.name("rw"), LockMode.READ);
    assertThat(store.tryAcquire(read, owner(kit, "r1"), lease).isAcquired()).isTrue();
    assertThat(store.tryAcquire(read, owner(kit, "r2"), lease).isAcquired()).isTrue();
    // r1 has died; r2 keeps extending, every third of a lease, until well past r1's lease.
    long end = System.nanoTime() + lease.plus(kit.slack()).plus(kit.slack()).toNanos();
    while (System.nanoTime() - end < 0) {
      assertThat(store.extend(read, owner(kit, "r2"), lease)).as("r2's extend").isTrue();
      Thread.sleep(Math.max(10, lease.toMillis() / 3));
    }
    assertThat(store.extend(read, owner(kit, "r1"), lease))
        .as("the extend of a reader whose lease ran out while another reader kept extending")
        .isFalse();
    assertThat(store.release(read, owner(kit, "r2"))).isEqualTo(ReleaseOutcome.RELEASED);
    LockKey write = new LockKey(read.name(), LockMode.WRITE);
    assertThat(kit.store(kit.client()).tryAcquire(write, owner(kit, "w"), lease).isAcquired())
        .as("a writer once the live reader released and the dead one's lease ran out")
        .isTrue();
    store.release(write, owner(kit, "w"));
  }

  @Test
  @Requires(value = Capability.READ_WRITE, hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_14_waitingWriterMarkEndsWithItsLease() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockStore store = kit.store(a);
    Duration shortLease = kit.expiryLease(a);
    Duration longLease = shortLease.multipliedBy(20);
    LockKey read = new LockKey(kit.name("rw"), LockMode.READ);
    LockKey write = new LockKey(read.name(), LockMode.WRITE);
    assertThat(store.tryAcquire(read, owner(kit, "r1"), longLease).isAcquired()).isTrue();
    long marked = System.nanoTime();
    assertThat(kit.store(kit.client()).tryAcquire(write, owner(kit, "w"), shortLease).isAcquired())
        .as("a writer while a reader holds")
        .isFalse();
    // The writer dies here: it never acquires and never withdraws.
    LockStore readers = kit.store(kit.client());
    await()
        .atMost(shortLease.plus(kit.slack()))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!readers.tryAcquire(read, owner(kit, "r2"), longLease).isAcquired()) {
                return false;
              }
              readers.release(read, owner(kit, "r2"));
              return true;
            });
    assertThat(Duration.ofNanos(System.nanoTime() - marked))
        .as("when a new reader got in after the waiting writer died")
        .isLessThanOrEqualTo(shortLease.plus(kit.slack()));
    store.release(read, owner(kit, "r1"));
  }

  @Test
  @Requires(hooks = KitHook.ENGINE_CLIENT, leaseExpiry = true)
  default void rule_12_15_batchExtendChecksEachOwner() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    Duration shortLease = kit.expiryLease(a);
    Duration longLease = shortLease.plus(kit.slack()).multipliedBy(3);
    kit.forEveryKind(
        a,
        kind -> {
          LockStore store = kit.store(a);
          LockStore other = kit.store(b);
          String owner = owner(kit, "holder");
          String rival = owner(kit, "rival");
          LockKey mine = new LockKey(kit.name("mine-" + kind), kind.mode());
          LockKey theirs = new LockKey(kit.name("theirs-" + kind), kind.mode());
          LockKey free = new LockKey(kit.name("free-" + kind), kind.mode());
          LockKey mineToo = new LockKey(kit.name("mine-too-" + kind), kind.mode());
          assertThat(store.tryAcquire(mine, owner, shortLease).isAcquired()).isTrue();
          assertThat(other.tryAcquire(theirs, rival, shortLease).isAcquired()).isTrue();
          assertThat(store.tryAcquire(mineToo, owner, shortLease).isAcquired()).isTrue();
          long sent = System.nanoTime();
          boolean[] answers =
              store.extendAll(
                  List.of(
                      new LeaseExtension(mine, owner, longLease),
                      new LeaseExtension(theirs, owner, longLease),
                      new LeaseExtension(free, owner, longLease),
                      new LeaseExtension(mineToo, owner, longLease),
                      new LeaseExtension(mine, rival, longLease)));
          assertThat(answers)
              .as(
                  "%s extendAll answers for [own hold, another owner's hold, a free name, own hold,"
                      + " own hold asked for by another owner]",
                  kind)
              .containsExactly(true, false, false, true, false);
          assertThat(store.read(free).locked())
              .as("%s read() of a free name after a batch extended it for an owner", kind)
              .isFalse();
          // Another owner's hold in the batch kept its short lease: a third owner gets in soon.
          LockKey afterTheirs = rivalKey(theirs.name(), kind);
          await()
              .atMost(shortLease.plus(kit.slack()))
              .pollInterval(Duration.ofMillis(10))
              .until(() -> other.tryAcquire(afterTheirs, "tck-third", longLease).isAcquired());
          // The holder's own holds got the long lease: they outlast their short one.
          for (LockKey own : List.of(mine, mineToo)) {
            LockKey rivalOfOwn = rivalKey(own.name(), kind);
            assertThat(other.tryAcquire(rivalOfOwn, "tck-third", longLease).isAcquired())
                .as("%s attempt on a hold the batch extended, past its first lease", kind)
                .isFalse();
            withdrawIfWriter(other, rivalOfOwn, "tck-third");
          }
          assertThat(Duration.ofNanos(System.nanoTime() - sent))
              .as("%s time the checks took after the batch", kind)
              .isLessThan(longLease);
          assertThat(store.release(mine, owner)).isEqualTo(ReleaseOutcome.RELEASED);
          assertThat(store.release(mineToo, owner)).isEqualTo(ReleaseOutcome.RELEASED);
          assertThat(other.release(afterTheirs, "tck-third")).isEqualTo(ReleaseOutcome.RELEASED);
        });
  }
}
