package dev.locksmith;

import java.time.Duration;
import java.time.Instant;

/**
 * The proof of holding a lock: while a lease is {@linkplain #isValid() valid}, no other owner holds
 * a valid lease on the same name.
 *
 * <p>A lease belongs to whoever has the object, not to a thread: it may be released from another
 * thread, a virtual thread, an executor or a reactive callback. It ends in exactly one of three
 * ways:
 *
 * <ul>
 *   <li>{@link #release()} (or {@link #close()}) by its holder, which is owner-checked in the
 *       store: it can never free a lock that has meanwhile passed to someone else;
 *   <li>loss: the lease expired without being renewed, the renewal watchdog found the lock gone or
 *       taken, or the store session ended. Every listener registered with {@link #onLost} is told
 *       exactly once, and a later {@code release()} or {@code close()} throws {@link
 *       LeaseLostException} so the holder cannot believe it still held the lock;
 *   <li>the {@link LockClient} was closed, which releases its leases.
 * </ul>
 *
 * <p>With auto-renew on (the default), a shared watchdog extends the lease at a third of its lease
 * time. Without it, the lease ends at {@link #expiresAt()} unless {@link #extend extended}.
 */
public interface Lease extends AutoCloseable {

  /** The name of the lock this lease holds. */
  String name();

  /**
   * A number that strictly increases across successive holders of this lock name, to be passed to
   * the protected resource so it can refuse writes from a holder whose lease has ended.
   *
   * <p>Nested holds by the same owner share their first hold's token. For a read lease the token is
   * the one of the last writer (equal across concurrent readers).
   *
   * @throws UnsupportedCapabilityException if the store does not declare {@link Capability#FENCING}
   */
  long fencingToken();

  /**
   * When the lease ends unless it is renewed or extended, judged conservatively on this client's
   * clock (it is measured from before the acquire request was sent). {@link Instant#MAX} for stores
   * whose holds are bound to a session ({@link Capability#SESSION_BOUND}).
   */
  Instant expiresAt();

  /**
   * True while the lease is held: not released, not lost, not past its expiry, and (for session
   * bound stores) while the store connection is not suspended. A lease that turns invalid because
   * the connection is suspended may become valid again if the session survives.
   */
  boolean isValid();

  /**
   * Extends the lease to {@code leaseTime} from now, owner-checked in the store. For session bound
   * stores it only checks that the lease is still held.
   *
   * @throws IllegalArgumentException if {@code leaseTime} is not positive, is shorter than the
   *     store's minimum lease, or is longer than {@link LockOptions#MAX_LEASE_TIME}
   * @throws LeaseLostException if the lease was already lost or the store no longer holds it for
   *     this owner
   * @throws IllegalStateException if the lease was released, or its lock client was closed (which
   *     released it); the message says which
   * @throws LockStoreException if the store failed; the lease keeps its previous expiry
   */
  void extend(Duration leaseTime);

  /**
   * Releases the lock (or one nested hold of it), owner-checked. Calling it again is a no-op.
   *
   * @throws LeaseLostException if the lease was lost before this call; nothing of anyone else's was
   *     released, and this is how the holder learns that its critical section was not protected to
   *     the end
   * @throws LockStoreException if the store failed; renewal stops, so the lock frees itself when
   *     its lease runs out
   */
  void release();

  /** Same as {@link #release()}, so that a lease can be held in try-with-resources. */
  @Override
  void close();

  /**
   * Releases the lease for its holder but leaves the lock taken in the store until at least {@code
   * minimumHold} has passed since the acquire returned: ShedLock's {@code lockAtLeastFor}, so that
   * a short job scheduled on several nodes whose clocks differ runs once per period.
   *
   * <p>If {@code minimumHold} has already passed, this is {@link #release()}. Otherwise renewal
   * stops and the store is told, owner-checked, to let the hold expire at that moment (rounded up
   * to the store's granularity): the expiry is kept by the store, so it holds even if this process
   * dies right after, and closing the client does not end it early. For the holder the lease ends
   * now: {@link #isValid()} is false and a later {@code release()} is a no-op.
   *
   * <p>Stores whose holds are bound to a session ({@link Capability#SESSION_BOUND}, ZooKeeper) have
   * no store-side expiry: the hold stays in this client's session and the client releases it at
   * that moment; if the process dies or the client closes sooner, the session ends and the lock
   * frees sooner. For a nested hold the expiry is the owner's, shared with its other holds.
   *
   * @throws IllegalArgumentException if {@code minimumHold} is negative or longer than {@link
   *     LockOptions#MAX_LEASE_TIME}
   * @throws LeaseLostException if the lease was lost before this call, or the store no longer held
   *     it; nothing of anyone else's was touched
   * @throws LockStoreException if the store failed; the hold then ends no later than its current
   *     lease, which may be sooner than asked
   * @throws UnsupportedOperationException if this lease was not made by Locksmith's engine (the
   *     default implementation)
   */
  default void releaseHeldAtLeast(Duration minimumHold) {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not implement releaseHeldAtLeast");
  }

  /**
   * Registers a listener that is told exactly once if this lease is lost. A listener registered
   * after the loss is told at once, on the calling thread. Listeners run on the watchdog's thread
   * and must not block.
   */
  Lease onLost(LeaseLostListener listener);
}
