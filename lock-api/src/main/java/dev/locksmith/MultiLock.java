package dev.locksmith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Several locks taken together, all or nothing.
 *
 * <p>The locks are always acquired in one canonical order (by name), whatever order the caller
 * gave, so two callers asking for {a, b} and {b, a} can never deadlock. If any lock cannot be had
 * within the wait, the ones already taken are released in reverse order and the caller holds none
 * of them.
 */
public interface MultiLock {

  /** The names, in the canonical order they are acquired in. */
  List<String> names();

  /** Tries each lock once, without waiting; empty (holding nothing) if any is taken. */
  Optional<MultiLease> tryAcquire();

  /**
   * Waits at most {@code wait} in all for every lock.
   *
   * @throws InterruptedException if interrupted while waiting; nothing is held
   */
  Optional<MultiLease> tryAcquire(Duration wait) throws InterruptedException;

  /**
   * Waits as long as it takes for every lock.
   *
   * @throws InterruptedException if interrupted while waiting; nothing is held
   */
  MultiLease acquire() throws InterruptedException;

  /**
   * Waits at most {@code wait} in all for every lock.
   *
   * @throws LockTimeoutException if some lock was still taken when the wait ran out; nothing is
   *     held
   * @throws InterruptedException if interrupted while waiting; nothing is held
   */
  MultiLease acquire(Duration wait) throws InterruptedException;
}
