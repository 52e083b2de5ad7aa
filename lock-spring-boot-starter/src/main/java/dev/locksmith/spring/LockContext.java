package dev.locksmith.spring;

import dev.locksmith.Lease;
import dev.locksmith.spring.internal.CurrentLease;
import java.util.Optional;

/**
 * The lease held for the code that runs on the current thread inside a {@link Locked} method or a
 * {@link LockTemplate} action: how a {@code @Scheduled} method, which takes no parameters, reaches
 * its fencing token.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @Locked(name = "export")
 * public void export() {
 *   long token = LockContext.currentLease().fencingToken();   // pass it to the protected store
 * }
 * }</pre>
 *
 * <p>In nested locked calls it is the innermost lease. It is bound to the thread that runs the
 * method: work handed to another thread must take the {@link Lease} with it.
 */
public final class LockContext {

  private LockContext() {}

  /**
   * The innermost lease held for the current thread.
   *
   * @throws IllegalStateException if no {@link Locked} method or {@link LockTemplate} action runs
   *     on this thread (ShedLock's {@code LockAssert.assertLocked()}: a misconfigured proxy shows
   *     up here instead of running unlocked)
   */
  public static Lease currentLease() {
    return CurrentLease.get()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no @Locked method or LockTemplate action holds a lock on thread "
                        + Thread.currentThread().getName()
                        + "; is the method called through its Spring bean (not from inside the"
                        + " same object), public and not final?"));
  }

  /** The innermost lease held for the current thread, if any. */
  public static Optional<Lease> current() {
    return CurrentLease.get();
  }
}
