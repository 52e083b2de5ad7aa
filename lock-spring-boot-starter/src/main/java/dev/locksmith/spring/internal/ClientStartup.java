package dev.locksmith.spring.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spring.StartupMode;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Opens the starter's client as {@code locksmith.startup} says: a store that cannot be reached
 * fails startup ({@link StartupMode#STRICT}, one line) or leaves a {@link DeferredLockClient} that
 * connects in the background ({@link StartupMode#LENIENT}).
 */
public final class ClientStartup {

  private ClientStartup() {}

  /**
   * The client {@code opener} opens, or, if the store cannot be reached ({@link
   * LockStoreException}), what {@code mode} says.
   *
   * @param what names the store in a startup failure ({@code "locksmith.uri 'redis://…'"})
   * @param options the options {@code opener} opens the client with
   * @param outage where an unreachable store is reported
   * @throws StartupFailure if the store cannot be reached and {@code mode} is strict
   */
  public static LockClient open(
      String what,
      Supplier<LockClient> opener,
      StartupMode mode,
      LockOptions options,
      StoreOutage outage) {
    Objects.requireNonNull(what, "what must not be null");
    Objects.requireNonNull(opener, "opener must not be null");
    Objects.requireNonNull(mode, "mode must not be null");
    Objects.requireNonNull(options, "options must not be null");
    Objects.requireNonNull(outage, "outage must not be null");
    long started = StoreOutage.now();
    try {
      return opener.get();
    } catch (LockStoreException e) {
      if (mode == StartupMode.STRICT) {
        throw new StartupFailure(
            what
                + ": the lock store cannot be reached: "
                + StoreOutage.cause(e)
                + " (locksmith.startup=strict; with lenient the application starts without it)",
            e);
      }
      return new DeferredLockClient(opener, options, outage, started, e);
    }
  }
}
