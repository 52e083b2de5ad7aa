package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.StoreTiming;
import java.util.Optional;

/**
 * Reaches the store behind a client made by the engine: the kit calls the SPI directly for the
 * owner checks the engine would never let through, and reads the store's timing.
 */
final class EngineAccess {

  private EngineAccess() {}

  /** The store behind {@code client}, if it is an engine client. */
  static Optional<LockStore> store(LockClient client) {
    return client instanceof EngineClient
        ? Optional.of(((EngineClient) client).store())
        : Optional.empty();
  }

  /**
   * The store behind {@code client}, taken over from it: the client is shut down without closing
   * the store, which the caller now owns.
   */
  static LockStore detachStore(LockClient client) {
    if (!(client instanceof EngineClient)) {
      throw new IllegalStateException("not an engine client: " + client);
    }
    return ((EngineClient) client).detachStore();
  }

  /** The timing of the store behind {@code client}; millisecond timing if it is not known. */
  static StoreTiming timing(LockClient client) {
    return client instanceof EngineClient
        ? ((EngineClient) client).timing()
        : StoreTiming.MILLISECONDS;
  }
}
