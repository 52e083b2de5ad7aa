package dev.locksmith.bench;

/**
 * One lock implementation under measurement, standing for one process (one client, one connection
 * pool): Locksmith on a store, the raw-client bound on that store, or a peer library.
 *
 * <p>Every target is thread-safe. {@link #acquire} waits until the lock is held (at most {@link
 * #MAX_WAIT_MILLIS}) and fails with an exception otherwise; the returned {@link Held} must be
 * released by the thread that acquired it, because Redisson, Curator and Spring Integration locks
 * are thread-owned. Failures of the store are thrown as they come, never swallowed, so a broken
 * target stops the benchmark instead of producing a fast wrong number.
 */
public interface LockTarget extends AutoCloseable {

  /** How long {@link #acquire} waits before it gives up. */
  long MAX_WAIT_MILLIS = 30_000;

  /** The target's id, such as {@code redis/locksmith}. */
  String id();

  /**
   * Acquires the exclusive lock {@code name}, waiting up to {@link #MAX_WAIT_MILLIS}.
   *
   * @throws IllegalStateException if the lock was not acquired in time
   * @throws Exception whatever the underlying client throws
   */
  Held acquire(String name) throws Exception;

  /**
   * Whether a waiter is woken by a release (push, watch or the library's own wait loop), so that
   * hand-off latency means something. The raw bounds (but Redis's, which waits on pub/sub as the
   * floor of a push hand-off) and ShedLock only try once and are not.
   */
  boolean blocking();

  /** Closes the client and its connections. */
  @Override
  void close() throws Exception;

  /** A held lock. */
  @FunctionalInterface
  interface Held {
    /** Releases the lock (owner-checked where the implementation checks owners). */
    void release() throws Exception;
  }
}
