package dev.locksmith.spring;

/**
 * What a {@link Locked} method does when its lock is still taken by someone else after its {@link
 * Locked#waitFor() waitFor}.
 */
public enum OnBusy {
  /**
   * Do not run the method: return {@code null}, an empty {@link java.util.Optional} (or {@code
   * OptionalInt}…), or nothing for {@code void}. The usual choice for scheduled jobs: another
   * instance is doing the work. Not allowed on methods that return a primitive.
   */
  SKIP,
  /** Wait as long as it takes, then run. {@link Locked#waitFor()} must be left at its default. */
  WAIT,
  /** Throw {@link dev.locksmith.LockTimeoutException}; the method does not run. */
  FAIL
}
