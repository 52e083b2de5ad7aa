package dev.locksmith.internal;

/**
 * What an acquire does with the caller's interrupt flag.
 *
 * <p>Calls that promise not to wait ({@code tryAcquire()}, {@code Lock.tryLock()}) and calls that
 * promise not to give up ({@code Lock.lock()}) treat an interrupt as {@link
 * java.util.concurrent.locks.ReentrantLock} does: they set it aside, do their work, and leave the
 * flag set for the caller. Every other acquire ends with {@link InterruptedException}.
 */
enum Interrupts {
  /** An interrupt, before or during the attempt, ends it with {@link InterruptedException}. */
  HONOURED,
  /** An interrupt is set aside for the attempt and restored when it returns. */
  DEFERRED;

  /**
   * Runs {@code call} with the thread's interrupt flag cleared, and sets it again afterwards if it
   * was set: store drivers refuse to work on an interrupted thread, and a release or a renewal must
   * not fail because its caller was interrupted earlier.
   */
  static <T> T deferredDuring(java.util.function.Supplier<T> call) {
    boolean pending = Thread.interrupted();
    try {
      return call.get();
    } finally {
      if (pending) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
