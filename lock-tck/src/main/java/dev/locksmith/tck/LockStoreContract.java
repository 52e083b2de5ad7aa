package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.internal.EngineClient;
import java.time.Duration;
import java.util.Optional;

/**
 * The contract every lock store must pass: extend it with one small class per store.
 *
 * <pre>{@code
 * class RedisLockContractTest extends LockStoreContract {
 *   protected LockClient newClient(LockOptions options) {
 *     return LockClient.open("redis://127.0.0.1:" + redis.port(), options);
 *   }
 * }
 * }</pre>
 *
 * <p>HOOKS ONLY FOR NOW: the nested promise groups are being written.
 */
public abstract class LockStoreContract {

  /**
   * A new client with {@code options}: a separate connection, standing for a separate process. The
   * kit closes every client it creates.
   */
  protected abstract LockClient newClient(LockOptions options);

  /** A new client with default options. */
  protected LockClient newClient() {
    return newClient(LockOptions.defaults());
  }

  /**
   * A lease short enough for the expiry tests to run quickly and long enough for the store to hold
   * it reliably (at least a few store round trips, and a whole number of the store's granularity).
   * Default 600 ms; memcached, with whole-second expiry, overrides it.
   */
  protected Duration shortLease() {
    return Duration.ofMillis(600);
  }

  /**
   * How late the store may free an expired lock or wake a waiter beyond what it promised: the bound
   * in "within lease + bound". Default 1 s (these machines are small and noisy).
   */
  protected Duration timingSlack() {
    return Duration.ofSeconds(1);
  }

  /** The store's fault injector, if the fixture can pause, kill and restart it. */
  protected Optional<StoreFaults> faults() {
    return Optional.empty();
  }

  /**
   * Makes {@code client} behave like a process that died while holding locks: no release, no
   * renewal, connection gone. The default works for every client made by {@code LockClient.open} or
   * {@code LockClient.of}.
   */
  protected void crash(LockClient client) {
    if (client instanceof EngineClient) {
      ((EngineClient) client).crash();
    } else {
      throw new IllegalStateException(
          "cannot crash a " + client.getClass().getName() + "; override crash(LockClient)");
    }
  }
}
