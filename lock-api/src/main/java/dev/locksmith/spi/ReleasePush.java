package dev.locksmith.spi;

/**
 * The part of a {@link LockStore} that tells waiters a lock may have been released (Redis pub/sub,
 * a ZooKeeper watch): a store that provides it declares {@code Capability.WAKE_ON_RELEASE}.
 *
 * <p>The engine still polls as a fallback, so a lost or late notification only delays a waiter; an
 * extra one costs one more attempt.
 */
@FunctionalInterface
public interface ReleasePush {

  /**
   * Runs {@code onRelease} (on any thread, possibly more than once) when {@code key} may have been
   * released, until the returned handle is closed. Returns only once the subscription is live: the
   * engine asks the store again right after it, and a release in between must not be missed.
   */
  AutoCloseable onRelease(LockKey key, Runnable onRelease) throws Exception;
}
