package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Promise 15: what operations bring does not break the others. A store keeps nothing per lock name
 * once the name is free (a service that locks per order or per request must not grow its store
 * without bound), and fencing tokens keep rising when the store drops what is idle, as a Redis with
 * {@code allkeys-lru} or a memcached under memory pressure does.
 *
 * <p>Both rules look into the store through the fixture's {@link StoreInspector}, under a key
 * prefix of their own.
 */
public interface FootprintRules extends KitTest {

  /** How many distinct names 15.1 uses and frees. */
  int NAMES = 1000;

  @Test
  @Requires(hooks = KitHook.INSPECTOR)
  default void rule_15_1_nothingLeftPerName() throws Exception {
    Kit kit = kit();
    StoreInspector inspector = kit.inspector();
    String prefix = kit.keyPrefix("fp");
    LockClient a = kit.client(Kit.prefixed(prefix));
    LockClient b = kit.client(Kit.prefixed(prefix));
    int threads = 8;
    ExecutorService pool = kit.pool(threads);
    List<Future<?>> users = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      users.add(
          pool.submit(
              () -> {
                for (int i = first; i < NAMES; i += threads) {
                  useOnce(a, b, "n" + i, i);
                }
                return null;
              }));
    }
    for (Future<?> f : users) {
      Kit.within(f, Duration.ofMinutes(5), "a thread using names");
    }
    assertSettled(kit, inspector, prefix, a, Duration.ZERO, NAMES + " names used and released");

    Duration lease = kit.expiryLease(a);
    LockClient doomed =
        kit.client(LockOptions.builder().keyPrefix(prefix).leaseTime(lease).build());
    for (int i = 0; i < 20; i++) {
      doomed.lock("crashed-" + i).tryAcquire().orElseThrow();
    }
    kit.crash(doomed);
    assertSettled(kit, inspector, prefix, a, lease, "20 names held by a client that crashed");
  }

  /**
   * Uses the name {@code name} once and frees it, in one of four ways picked by {@code way}, so
   * that every path that writes a mark or a record has to clean it up: nested holds, a waiter that
   * got the lock after the holder released, readers with a writer kept out, a writer with a reader
   * refused.
   */
  private static void useOnce(LockClient a, LockClient b, String name, int way) throws Exception {
    boolean readWrite = a.capabilities().contains(Capability.READ_WRITE);
    switch (way % 4) {
      case 0:
        if (a.capabilities().contains(Capability.REENTRANCY)) {
          Lease outer = a.lock(name).withOwner("fp-" + name).tryAcquire().orElseThrow();
          Lease inner = b.lock(name).withOwner("fp-" + name).tryAcquire().orElseThrow();
          inner.release();
          outer.release();
        } else {
          a.lock(name).tryAcquire().orElseThrow().release();
        }
        return;
      case 1:
        {
          Lease held = a.lock(name).tryAcquire().orElseThrow();
          assertThat(b.lock(name).tryAcquire()).as("'%s' while held", name).isEmpty();
          assertThat(b.lock(name).isLocked()).as("isLocked of '%s'", name).isTrue();
          held.release();
          b.lock(name).acquire(Duration.ofSeconds(30)).release();
          return;
        }
      case 2:
        if (readWrite) {
          DistributedReadWriteLock rw = a.readWriteLock(name);
          Lease r1 = rw.readLock().tryAcquire().orElseThrow();
          Lease r2 = b.readWriteLock(name).readLock().tryAcquire().orElseThrow();
          assertThat(b.readWriteLock(name).writeLock().tryAcquire())
              .as("a writer of '%s' while read", name)
              .isEmpty();
          r1.release();
          r2.release();
          b.readWriteLock(name).writeLock().acquire(Duration.ofSeconds(30)).release();
        } else {
          a.lock(name).tryAcquire().orElseThrow().release();
        }
        return;
      default:
        if (readWrite) {
          Lease w = a.readWriteLock(name).writeLock().tryAcquire().orElseThrow();
          assertThat(b.readWriteLock(name).readLock().tryAcquire())
              .as("a reader of '%s' while written", name)
              .isEmpty();
          w.release();
          b.readWriteLock(name).readLock().acquire(Duration.ofSeconds(30)).release();
        } else {
          Lease held = a.lock(name).tryAcquire().orElseThrow();
          held.release();
        }
    }
  }

  /**
   * Waits until the store keeps at most its shared entries under {@code prefix}: within {@code
   * lease} (what a crashed holder still holds) plus the store's cleanup delay and the slack. A
   * store may clean up as part of its traffic (a sweep its operations run), so the wait keeps a
   * little traffic going on a probe name, as any service using the store would.
   */
  private static void assertSettled(
      Kit kit,
      StoreInspector inspector,
      String prefix,
      LockClient traffic,
      Duration lease,
      String after) {
    long shared = inspector.sharedEntries();
    Duration bound = lease.plus(inspector.cleanupDelay()).plus(kit.slack());
    long start = System.nanoTime();
    long deadline = start + bound.toNanos();
    long entries;
    while (true) {
      traffic.lock("probe").tryAcquire().ifPresent(Lease::release);
      entries = inspector.entries(prefix);
      if (entries <= shared || System.nanoTime() - deadline > 0) {
        break;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
    assertThat(entries)
        .as(
            "entries the store keeps under key prefix '%s' %d ms after %s (at most its %d shared"
                + " ones, within %d ms)",
            prefix, Kit.millisSince(start), after, shared, bound.toMillis())
        .isLessThanOrEqualTo(shared);
  }

  @Test
  @Requires(value = Capability.FENCING, hooks = KitHook.INSPECTOR)
  default void rule_15_2_tokensRiseAfterEviction() {
    Kit kit = kit();
    StoreInspector inspector = kit.inspector();
    String prefix = kit.keyPrefix("ev");
    LockClient c = kit.client(Kit.prefixed(prefix));
    long highest = Long.MIN_VALUE;
    for (int i = 0; i < 3; i++) {
      Lease lease = c.lock("x").tryAcquire().orElseThrow();
      highest = Math.max(highest, lease.fencingToken());
      lease.release();
    }
    inspector.evictIdle(prefix);
    highest = nextToken(c.lock("x").tryAcquire().orElseThrow(), highest, "'x', held before");
    inspector.evictIdle(prefix);
    highest = nextToken(c.lock("y").tryAcquire().orElseThrow(), highest, "'y', never held");
    if (!c.capabilities().contains(Capability.READ_WRITE)) {
      return;
    }
    DistributedReadWriteLock rw = c.readWriteLock("rw");
    highest = nextToken(rw.writeLock().tryAcquire().orElseThrow(), highest, "a writer of 'rw'");
    inspector.evictIdle(prefix);
    Lease reader = rw.readLock().tryAcquire().orElseThrow();
    assertThat(reader.fencingToken())
        .as("a reader's token after the store dropped its idle state: at least the last writer's")
        .isGreaterThanOrEqualTo(highest);
    highest = reader.fencingToken();
    reader.release();
    inspector.evictIdle(prefix);
    nextToken(rw.writeLock().tryAcquire().orElseThrow(), highest, "the next writer of 'rw'");
  }

  /** Checks that {@code lease}'s token exceeds {@code highest}, releases it, returns the token. */
  private static long nextToken(Lease lease, long highest, String what) {
    long token = lease.fencingToken();
    lease.release();
    assertThat(token)
        .as(
            "token of %s after the store dropped its idle state (highest before: %d)",
            what, highest)
        .isGreaterThan(highest);
    return token;
  }
}
