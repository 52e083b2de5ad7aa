package dev.locksmith.memcached;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.StoreFaults;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit against a real memcached, opened through the provider ({@code memcached://}) so the
 * URI path and {@code ServiceLoader} registration are what the kit exercises.
 *
 * <p>Memcached's expiry is in whole seconds and an item may go up to a second early or late, so the
 * short lease is 2 s and the slack 2 s.
 */
class MemcachedLockContractTest extends LockStoreContract {

  private static MemcachedServer server;

  @BeforeAll
  static void startServer() {
    server = MemcachedServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(server.uri(), options);
  }

  @Override
  protected Duration shortLease() {
    return Duration.ofSeconds(2);
  }

  @Override
  protected Duration timingSlack() {
    return Duration.ofSeconds(2);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(server);
  }

  @Override
  protected Optional<OutsideActor> outsideActor() {
    return Optional.of(server.outsideActor());
  }

  @Override
  protected Optional<String> storeUri() {
    return Optional.of(server.uri());
  }
}
