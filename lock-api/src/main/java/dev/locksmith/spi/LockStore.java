package dev.locksmith.spi;

import dev.locksmith.Capability;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One connection to a lock store: the atomic operations only the store can do.
 *
 * <p>The core is the exclusive lock: {@link #tryAcquire}, {@link #extend}, {@link #release} and
 * {@link #read}, plus {@link #extendAll}, which a store overrides only to renew many holds in fewer
 * round trips. Every operation is atomic in the store and owner-checked: an owner can extend or
 * release only its own hold, and an operation never touches anyone else's. Operations are called
 * from many threads at once and must be thread-safe. They block until the store answers or the
 * store's own command timeout passes.
 *
 * <p>What a store can do beyond the core it provides as separate parts: {@link #readWrite()},
 * {@link #waitQueue()}, {@link #releasePush()} and {@link #sessionEvents()}. Its {@linkplain
 * #capabilitiesOf capabilities} follow from the parts it provides plus the {@link #promises()} it
 * makes about the core's answers, so a capability cannot be declared without the part behind it.
 *
 * <p><b>Failures.</b> A store throws its driver's exceptions as they come, checked or not; it does
 * not wrap them. The engine calls every operation through one gateway that turns a failure into
 * {@code LockStoreException} naming the operation, the lock, the store and the kind of failure
 * ({@link #classify}), restores the interrupt flag of an {@link InterruptedException}, and never
 * reports a failure as a busy or successful answer. A store may throw {@code LockStoreException}
 * itself where it knows better (a closed connection); the gateway passes it on unchanged.
 *
 * <p><b>Leases.</b> The engine rounds every lease time up to {@link StoreTiming#granularity()}
 * before calling the store, and never passes one below {@link StoreTiming#minimumLease()}. Holds
 * are reentrant per owner when the store promises {@link Capability#REENTRANCY}: the same owner
 * acquiring again gets a nested hold with the same token, and the lease is reset to the new lease
 * time. Expiry is judged by the store on its own clock, never on the client's: the server's clock,
 * or for a store without a server one clock that every process opening it reads the same (file
 * timestamps, a database's {@code now()}), never each process's own. A clock coarser than a
 * millisecond is the store's {@link StoreTiming#granularity()}.
 *
 * <p><b>Interrupts.</b> {@code extend}, {@code release} and {@code read} are called with the
 * caller's interrupt flag set aside; {@code tryAcquire}, {@link WaitQueue#enqueue} and a queued
 * attempt's {@link QueuedAttempt#poll() poll} and {@link QueuedAttempt#awaitChange awaitChange} may
 * be interrupted mid-call (a cancelled acquire) and may then throw: the engine undoes an acquire of
 * unknown outcome. Names and owners arrive validated.
 *
 * <p>{@code lock-tck}'s README ("Writing a store: what the SPI means") lists these semantics with
 * the kit rule that checks each; {@code LockStoreContract} runs them against a store.
 */
public interface LockStore extends AutoCloseable {

  /**
   * The store for messages and reports: its kind, and for a store reached over the network its
   * address without credentials, such as {@code "redis://10.0.0.5:6379"} or {@code
   * "jdbc/postgresql"}. Never a password.
   */
  String describe();

  /**
   * The prefix this store puts before every lock name it writes ({@code ""} for none), as given to
   * it by its provider from {@code LockOptions.keyPrefix()} or by its constructor. The client
   * reports it in its options, and refuses a {@code keyPrefix} option that differs from it.
   */
  String keyPrefix();

  /**
   * What the store promises about its core answers: any of {@link Capability#FENCING}, {@link
   * Capability#DURABLE_FENCING} and {@link Capability#REENTRANCY}. The other capabilities come from
   * the parts the store provides; naming one here is an error the client reports when it opens. The
   * default promises nothing.
   */
  default Set<Capability> promises() {
    return Set.of();
  }

  /** The shortest lease the store can hold and its clock's granularity. */
  default StoreTiming timing() {
    return StoreTiming.MILLISECONDS;
  }

  /**
   * Takes {@code key} for {@code owner} with a lease of {@code leaseTime}, or adds a nested hold if
   * {@code owner} already holds it (reentrant stores): the nested hold keeps the first hold's token
   * and resets the lease to {@code leaseTime} from now. Never waits for the lock to be released.
   * For session bound stores {@code leaseTime} is ignored. Keys of mode {@link LockMode#READ} and
   * {@link LockMode#WRITE} arrive only at stores that provide {@link #readWrite()}.
   */
  Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception;

  /**
   * Sets the lease of {@code owner}'s hold on {@code key} to {@code leaseTime} from now.
   *
   * @return false if {@code owner} does not hold {@code key} (any more); nothing was changed
   */
  boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception;

  /**
   * Extends each hold of {@code extensions} as {@link #extend} would, in as few round trips as the
   * store can: the engine renews a client's due leases through this, so that a client holding
   * thousands of leases renews them in batches instead of one round trip after another. Each
   * extension is owner-checked on its own, exactly as {@code extend}: a batch never sets the lease
   * of a hold that another owner has, nor creates a hold.
   *
   * <p>The default calls {@link #extend} once per extension. A store whose driver can pipeline
   * (Redis, memcached) or batch statements (JDBC) should override it; {@code lock-tck}'s rule 12.15
   * checks the override.
   *
   * @param extensions the holds to extend, at least one, in no particular order; the same key may
   *     appear with different owners
   * @return one answer per extension, in the same order: false where that owner does not hold that
   *     key (any more) and nothing was changed for it
   * @throws Exception if the store failed: the engine then counts every extension of the batch as
   *     failed and retries them, so a store may throw after applying some
   */
  default boolean[] extendAll(List<LeaseExtension> extensions) throws Exception {
    boolean[] held = new boolean[extensions.size()];
    for (int i = 0; i < held.length; i++) {
      LeaseExtension e = extensions.get(i);
      held[i] = extend(e.key(), e.owner(), e.leaseTime());
    }
    return held;
  }

  /** Releases one hold of {@code owner} on {@code key}; never touches anyone else's hold. */
  ReleaseOutcome release(LockKey key, String owner) throws Exception;

  /** The current state of {@code key}. */
  LockState read(LockKey key) throws Exception;

  /** Shared (read) holds beside exclusive ones ({@link Capability#READ_WRITE}); empty if none. */
  default Optional<ReadWriteHolds> readWrite() {
    return Optional.empty();
  }

  /**
   * The store's queue of waiters ({@link Capability#FAIR_QUEUE}); empty if it keeps none. When
   * present, the engine waits through the queue instead of polling {@link #tryAcquire}.
   */
  default Optional<WaitQueue> waitQueue() {
    return Optional.empty();
  }

  /**
   * Notifications of releases ({@link Capability#WAKE_ON_RELEASE}); empty if the store cannot push.
   * The engine still polls as a fallback, so a lost notification only delays a waiter.
   */
  default Optional<ReleasePush> releasePush() {
    return Optional.empty();
  }

  /**
   * The store's session events ({@link Capability#SESSION_BOUND}): holds bound to the connection's
   * session instead of a lease time, and the store tells the engine when they are lost. Empty for
   * stores with leases.
   */
  default Optional<SessionEvents> sessionEvents() {
    return Optional.empty();
  }

  /**
   * What kind of failure {@code failure}, thrown by one of this store's operations, is: the gateway
   * names it in the message the caller reads. Override it for a driver whose exceptions the
   * JDK-level default ({@link StoreFailure#of}) does not recognise.
   */
  default StoreFailure classify(Exception failure) {
    return StoreFailure.of(failure);
  }

  /** Closes the connection. Holds that are bound to the session end with it. */
  @Override
  void close();

  /**
   * Everything {@code store} can promise: its {@link #promises()} and a capability for each part it
   * provides.
   *
   * @throws IllegalStateException if its promises name a capability that comes from a part
   */
  static Set<Capability> capabilitiesOf(LockStore store) {
    Set<Capability> promised = store.promises();
    Set<Capability> caps = EnumSet.noneOf(Capability.class);
    for (Capability c : promised) {
      if (c != Capability.FENCING
          && c != Capability.DURABLE_FENCING
          && c != Capability.REENTRANCY) {
        throw new IllegalStateException(
            store.describe()
                + " promises "
                + c
                + ", which a store declares by providing the part behind it, not by a promise");
      }
      caps.add(c);
    }
    if (store.readWrite().isPresent()) {
      caps.add(Capability.READ_WRITE);
    }
    if (store.waitQueue().isPresent()) {
      caps.add(Capability.FAIR_QUEUE);
    }
    if (store.releasePush().isPresent()) {
      caps.add(Capability.WAKE_ON_RELEASE);
    }
    if (store.sessionEvents().isPresent()) {
      caps.add(Capability.SESSION_BOUND);
    }
    return Set.copyOf(caps);
  }
}
