package dev.locksmith.spi;

/** The answer of {@link LockStore#release}. */
public enum ReleaseOutcome {
  /** The owner's last hold was released; the lock is free. */
  RELEASED,
  /** One nested hold was released; the owner still holds the lock. */
  HOLD_DECREMENTED,
  /**
   * The owner did not hold the lock (it expired, or someone else holds it now); nothing was
   * changed.
   */
  NOT_HELD
}
