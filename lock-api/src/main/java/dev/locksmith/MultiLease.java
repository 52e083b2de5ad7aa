package dev.locksmith;

import java.util.List;

/**
 * The leases of a {@link MultiLock}, held together and released together in reverse order.
 *
 * <p>{@link #release()} releases every lease even if some fail, then throws the first failure (a
 * {@link LeaseLostException} if any lease had been lost) with the others added as suppressed.
 */
public interface MultiLease extends AutoCloseable {

  /** The leases, in the order they were acquired. */
  List<Lease> leases();

  /** The lease on {@code name}. @throws IllegalArgumentException if the name is not one of these */
  Lease lease(String name);

  /** True while every lease is valid. */
  boolean isValid();

  /** Releases every lease, last acquired first. Calling it again is a no-op. */
  void release();

  /** Same as {@link #release()}. */
  @Override
  void close();
}
