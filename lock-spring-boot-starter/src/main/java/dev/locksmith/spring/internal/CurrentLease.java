package dev.locksmith.spring.internal;

import dev.locksmith.Lease;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The lease of the locked call running on each thread, behind {@link
 * dev.locksmith.spring.LockContext}. {@link #bind} returns what it replaced, so nested calls
 * restore their caller's lease.
 */
public final class CurrentLease {

  private static final ThreadLocal<Lease> CURRENT = new ThreadLocal<>();

  private CurrentLease() {}

  /** The current thread's lease, if a locked call runs on it. */
  public static Optional<Lease> get() {
    return Optional.ofNullable(CURRENT.get());
  }

  /** Makes {@code lease} the current thread's; returns the one it replaced (null if none). */
  static @Nullable Lease bind(Lease lease) {
    Lease previous = CURRENT.get();
    CURRENT.set(lease);
    return previous;
  }

  /** Restores {@code previous}, as returned by {@link #bind}. */
  static void restore(@Nullable Lease previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }
}
