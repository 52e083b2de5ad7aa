package dev.locksmith;

/**
 * The store behind this client cannot keep the promise a feature needs, so the feature is refused
 * instead of half-working.
 *
 * <p>{@link LockClient#capabilities()} lists what a store can do; asking for anything else (a
 * fencing token from a store that cannot make tokens safely, a read-write lock from a store without
 * one) throws this exception before anything is sent to the store.
 */
public class UnsupportedCapabilityException extends LockException {
  private static final long serialVersionUID = 1L;

  private final Capability capability;

  /** Creates an exception for the missing {@code capability} of the store called {@code store}. */
  public UnsupportedCapabilityException(Capability capability, String store, String why) {
    super(store + " does not support " + capability + ": " + why);
    this.capability = capability;
  }

  /** The capability that the store lacks. */
  public Capability capability() {
    return capability;
  }
}
