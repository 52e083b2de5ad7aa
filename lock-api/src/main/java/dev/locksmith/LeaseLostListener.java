package dev.locksmith;

/**
 * Told when a {@link Lease} ends without being released by its holder.
 *
 * <p>{@link #leaseLost} is called exactly once per lease and listener. The optional {@link
 * #leaseSuspended} and {@link #leaseResumed} hear about session bound stores (ZooKeeper) losing and
 * regaining their connection: while suspended the lease is not safe to rely on ({@link
 * Lease#isValid()} is false), and it is either resumed or lost. Callbacks run on Locksmith's own
 * threads and must return quickly.
 */
@FunctionalInterface
public interface LeaseLostListener {

  /** The lease has ended; {@code reason} says why. */
  void leaseLost(Lease lease, LeaseLostException reason);

  /** The store connection that backs the lease is suspended; the lease may yet be lost. */
  default void leaseSuspended(Lease lease) {}

  /** The store connection came back within its session; the lease is valid again. */
  default void leaseResumed(Lease lease) {}
}
