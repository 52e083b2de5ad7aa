package dev.locksmith.spi;

import dev.locksmith.LockOptions;
import java.util.Set;

/**
 * Opens {@link LockStore}s for the URI schemes it handles; found by {@link
 * java.util.ServiceLoader}.
 *
 * <p>Register an implementation in {@code META-INF/services/dev.locksmith.spi.LockProvider} (and
 * with {@code provides} in a {@code module-info}, where the module has one). It needs a public
 * no-argument constructor and must be cheap to create: connecting happens in {@link #open}. Two
 * providers that claim one scheme are an error that names both; a provider that fails to load is
 * logged and skipped.
 */
public interface LockProvider {

  /**
   * The URI schemes this provider handles, lower case, such as {@code "redis"} and {@code
   * "rediss"}.
   */
  Set<String> schemes();

  /**
   * The URI query options this provider understands besides the common ones of {@link
   * dev.locksmith.LockOptions}; any other option is rejected before {@link #open} is called.
   */
  default Set<String> options() {
    return Set.of();
  }

  /**
   * Whether an option this provider does not list should be passed through to the store rather than
   * rejected (a JDBC URL's driver properties).
   */
  default boolean passesUnknownOptions() {
    return false;
  }

  /**
   * Connects to the store at {@code uri}.
   *
   * @param uri the parsed URI; its {@link LockUri#storeOptions() store options} are only those this
   *     provider accepts
   * @param options the client's options, already merged with the URI's common options
   * @throws IllegalArgumentException if the URI is malformed for this store
   * @throws dev.locksmith.LockStoreException if the store cannot be reached
   */
  LockStore open(LockUri uri, LockOptions options);
}
