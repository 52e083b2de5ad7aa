package dev.locksmith.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.spi.WaitQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The engine's one way into a store: every call the engine makes into a {@link LockStore} or one of
 * its parts goes through here, so that no store has to translate failures, mind interrupts or round
 * leases itself.
 *
 * <p>A failed call becomes a {@link LockStoreException} that names the operation, the lock, the
 * store and the kind of failure the store {@linkplain LockStore#classify classified}, with the
 * driver's exception as cause; an {@link InterruptedException} sets the thread's interrupt flag
 * again. Lease times are rounded up to the store's granularity. Release, extend and read run with
 * the caller's interrupt flag set aside (see {@link Interrupts#deferredDuring}); acquires do not,
 * since an interrupt may cancel them and the engine then undoes an acquire of unknown outcome.
 */
final class StoreGateway {

  /** A call into the store, throwing whatever its driver throws. */
  @FunctionalInterface
  interface StoreCall<T> {
    T call() throws Exception;
  }

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final LockStore store;
  private final String storeName;
  private final Duration granularity;
  private final boolean granularityDividesSecond;
  private final int granularityNanos;
  private final @Nullable ReadWriteHolds readWrite;
  private final @Nullable WaitQueue queue;
  private final @Nullable ReleasePush push;

  StoreGateway(LockStore store) {
    this.store = store;
    this.storeName = store.describe();
    this.granularity = store.timing().granularity();
    this.granularityDividesSecond =
        granularity.compareTo(Duration.ofSeconds(1)) <= 0
            && NANOS_PER_SECOND % granularity.toNanos() == 0;
    this.granularityNanos = granularityDividesSecond ? (int) granularity.toNanos() : 0;
    this.readWrite = store.readWrite().orElse(null);
    this.queue = store.waitQueue().orElse(null);
    this.push = store.releasePush().orElse(null);
  }

  String storeName() {
    return storeName;
  }

  Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    Duration lease = rounded(leaseTime);
    return call("acquire", key, () -> store.tryAcquire(key, owner, lease));
  }

  /** Extends {@code owner}'s hold; false if it no longer holds {@code key}. */
  boolean extend(LockKey key, String owner, Duration leaseTime) {
    Duration lease = rounded(leaseTime);
    return Interrupts.deferredDuring(
        () -> call("extend", key, () -> store.extend(key, owner, lease)));
  }

  /**
   * Extends a batch of holds in one call into the store; one answer per extension, in order, false
   * where that owner no longer holds that key.
   */
  boolean[] extendAll(List<LeaseExtension> extensions) {
    List<LeaseExtension> batch = new ArrayList<>(extensions.size());
    for (LeaseExtension e : extensions) {
      Duration lease = rounded(e.leaseTime());
      batch.add(lease.equals(e.leaseTime()) ? e : new LeaseExtension(e.key(), e.owner(), lease));
    }
    String target = target(batch);
    boolean[] held =
        Interrupts.deferredDuring(
            () -> {
              try {
                return store.extendAll(batch);
              } catch (Exception e) {
                throw failure("extend", target, e);
              }
            });
    if (held == null || held.length != batch.size()) {
      throw new LockStoreException(
          "extend of "
              + target
              + " failed on "
              + storeName
              + ": the store gave "
              + (held == null
                  ? "no answers"
                  : held.length + (held.length == 1 ? " answer" : " answers"))
              + " for "
              + batch.size()
              + " extensions (a store answers each extension of a batch)");
    }
    return held;
  }

  private static String target(List<LeaseExtension> batch) {
    String first = "lock '" + batch.get(0).key().name() + "'";
    int others = batch.size() - 1;
    return others == 0
        ? first
        : first + " and " + others + " other lock" + (others == 1 ? "" : "s") + " in one batch";
  }

  /** Releases one hold of {@code owner}. */
  ReleaseOutcome release(LockKey key, String owner) {
    return Interrupts.deferredDuring(() -> call("release", key, () -> store.release(key, owner)));
  }

  /** Reads the state of {@code key}. */
  LockState read(LockKey key) {
    return Interrupts.deferredDuring(() -> call("read", key, () -> store.read(key)));
  }

  /** Removes a waiting writer's mark; nothing for stores without read-write holds. */
  void withdraw(LockKey key, String owner) {
    ReadWriteHolds holds = readWrite;
    if (holds != null) {
      call(
          "withdraw",
          key,
          () -> {
            holds.withdraw(key, owner);
            return null;
          });
    }
  }

  /** Joins the store's queue of waiters; empty if it keeps none. */
  Optional<QueuedAttempt> enqueue(LockKey key, String owner, Duration leaseTime) {
    WaitQueue q = queue;
    if (q == null) {
      return Optional.empty();
    }
    Duration lease = rounded(leaseTime);
    return Optional.of(call("acquire", key, () -> q.enqueue(key, owner, lease)));
  }

  Acquisition poll(QueuedAttempt queued, LockKey key) {
    return call("acquire", key, queued::poll);
  }

  void awaitChange(QueuedAttempt queued, LockKey key, Runnable signal) {
    call(
        "acquire",
        key,
        () -> {
          queued.awaitChange(signal);
          return null;
        });
  }

  void leave(QueuedAttempt queued, LockKey key) {
    call(
        "leaving the queue",
        key,
        () -> {
          queued.close();
          return null;
        });
  }

  /** Subscribes to releases of {@code key}; empty if the store cannot push. */
  Optional<AutoCloseable> onRelease(LockKey key, Runnable onRelease) {
    ReleasePush p = push;
    if (p == null) {
      return Optional.empty();
    }
    return Optional.of(call("subscribe", key, () -> p.onRelease(key, onRelease)));
  }

  <T> T call(String operation, LockKey key, StoreCall<T> call) {
    try {
      return call.call();
    } catch (Exception e) {
      throw failure(operation, key, e);
    }
  }

  /** What a failed store call becomes: a {@link LockStoreException} naming what failed where. */
  LockStoreException failure(String operation, LockKey key, Exception e) {
    return failure(operation, "lock '" + key.name() + "'", e);
  }

  private LockStoreException failure(String operation, String target, Exception e) {
    if (e instanceof InterruptedException) {
      // The driver cleared the flag when it threw; the engine decides on it, so it must be there.
      Thread.currentThread().interrupt();
    }
    if (e instanceof LockStoreException) {
      return (LockStoreException) e;
    }
    return new LockStoreException(
        operation
            + " of "
            + target
            + " failed on "
            + storeName
            + ": "
            + kind(e).description()
            + " ("
            + e
            + ")",
        e);
  }

  private StoreFailure kind(Exception e) {
    if (e instanceof InterruptedException) {
      return StoreFailure.INTERRUPTED;
    }
    try {
      return store.classify(e);
    } catch (RuntimeException classifierFailed) {
      e.addSuppressed(classifierFailed);
      return StoreFailure.of(e);
    }
  }

  /** {@code leaseTime} rounded up to a whole number of the store's clock units. */
  Duration rounded(Duration leaseTime) {
    if (granularityDividesSecond) {
      // Without Duration.dividedBy, whose BigDecimal arithmetic showed in every acquire's profile.
      int rest = leaseTime.getNano() % granularityNanos;
      return rest == 0 ? leaseTime : leaseTime.plusNanos(granularityNanos - rest);
    }
    long units = leaseTime.dividedBy(granularity);
    Duration down = granularity.multipliedBy(units);
    return down.equals(leaseTime) ? leaseTime : down.plus(granularity);
  }
}
