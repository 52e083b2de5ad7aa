package dev.locksmith.spring.internal;

/**
 * Locksmith's configuration keeps the application from starting: no store for {@code @Locked}
 * methods, a {@code locksmith.uri} that names no usable store, or a store that cannot be reached
 * with {@code locksmith.startup=strict}. Its message says what to do, so {@link
 * StartupFailureReporter} reports it in one line instead of a stack trace.
 */
public final class StartupFailure extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** A failure explained by {@code message}. */
  public StartupFailure(String message) {
    super(message);
  }

  /** A failure explained by {@code message}, caused by {@code cause} (shown at DEBUG). */
  public StartupFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
