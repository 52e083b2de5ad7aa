package dev.locksmith.spi;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * One connection to a lock store: the atomic operations only the store can do.
 *
 * <p>Every operation is atomic in the store and owner-checked: an owner can extend or release only
 * its own hold, and an operation never touches anyone else's. Operations are called from many
 * threads at once and must be thread-safe. They block until the store answers or the store's own
 * command timeout passes; they report every failure (unreachable, timed out, refused) as {@link
 * LockStoreException} with the driver's exception as cause, and never as a busy or successful
 * answer. Names and owners arrive validated.
 *
 * <p>Holds are reentrant per owner when the store declares {@link Capability#REENTRANCY}: the same
 * owner acquiring again gets a nested hold with the same token. Expiry is judged by the store on
 * its own clock. Everything else (waiting, renewal, the thread-owned view, multi-lock) is the
 * engine's. {@code extend}, {@code release} and {@code read} are called with the caller's interrupt
 * flag set aside; {@code tryAcquire} and {@link #enqueue} may be interrupted mid-call (a cancelled
 * acquire), and may then throw: the engine undoes an acquire of unknown outcome.
 *
 * <p>{@code lock-tck}'s README ("Writing a store: what the SPI means") lists these semantics with
 * the kit rule that checks each; {@code LockStoreContract} runs them against a store.
 */
public interface LockStore extends AutoCloseable {

  /**
   * A short name for messages and reports, such as {@code "redis"} or {@code "jdbc/postgresql"}.
   */
  String describe();

  /**
   * The prefix this store puts before every lock name it writes ({@code ""} for none), as given to
   * it by its provider from {@code LockOptions.keyPrefix()} or by its constructor. The client
   * reports it in its options, and refuses a {@code keyPrefix} option that differs from it.
   */
  String keyPrefix();

  /** What the store can promise beyond the core contract. */
  Set<Capability> capabilities();

  /** The shortest lease the store can hold and its clock's granularity. */
  default StoreTiming timing() {
    return StoreTiming.MILLISECONDS;
  }

  /**
   * Takes {@code key} for {@code owner} with a lease of {@code leaseTime}, or adds a nested hold if
   * {@code owner} already holds it (reentrant stores): the nested hold keeps the first hold's token
   * and resets the lease to {@code leaseTime} from now. Never waits for the lock to be released.
   * For session bound stores {@code leaseTime} is ignored. A reader's token is the read-write
   * lock's current counter (the last writer's), shared by every reader. A {@link LockMode#WRITE}
   * attempt that finds readers records that a writer waits (for {@code leaseTime}), so that new
   * readers are kept out until it has acquired or {@link #withdraw withdrawn}; stores that keep a
   * queue ({@link #enqueue}) keep the waiting writer's place there instead.
   */
  Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime);

  /**
   * Sets the lease of {@code owner}'s hold on {@code key} to {@code leaseTime} from now.
   *
   * @return false if {@code owner} does not hold {@code key} (any more); nothing was changed
   */
  boolean extend(LockKey key, String owner, Duration leaseTime);

  /** Releases one hold of {@code owner} on {@code key}; never touches anyone else's hold. */
  ReleaseOutcome release(LockKey key, String owner);

  /** The current state of {@code key}. */
  LockState read(LockKey key);

  /**
   * Called when a waiter that may have left a trace in the store (a waiting writer) gives up, so
   * the store can remove it: after a write {@code tryAcquire()} that found the lock taken, and
   * after a polling write wait that timed out or was interrupted. A writer that dies never calls
   * it; its mark must then end with its lease. The default does nothing.
   */
  default void withdraw(LockKey key, String owner) {}

  /**
   * Asks the store to run {@code onRelease} when {@code key} may have been released, for stores
   * that can push ({@link Capability#WAKE_ON_RELEASE}). The engine still polls as a fallback, so a
   * lost notification only delays a waiter. Close the returned handle to stop listening.
   *
   * @return empty if the store cannot push
   */
  default Optional<AutoCloseable> onRelease(LockKey key, Runnable onRelease) {
    return Optional.empty();
  }

  /**
   * Joins the store's queue of waiters for {@code key}, for stores that keep one ({@link
   * Capability#FAIR_QUEUE}). When present, the engine waits through the queue instead of polling
   * {@link #tryAcquire}.
   *
   * @return empty if the store keeps no queue
   */
  default Optional<QueuedAttempt> enqueue(LockKey key, String owner, Duration leaseTime) {
    return Optional.empty();
  }

  /** Registers the engine's listener for store-initiated events (sessions, dropped holds). */
  default void listen(StoreListener listener) {}

  /** Closes the connection. Holds that are bound to the session end with it. */
  @Override
  void close();
}
