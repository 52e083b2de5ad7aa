package dev.locksmith.etcd;

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
 * The test kit against a real single-member etcd, opened through the provider ({@code etcd://}) so
 * the URI path and {@code ServiceLoader} registration are what the kit exercises.
 *
 * <p>etcd's TTLs are whole seconds and its leader checks for expired leases twice a second, so a
 * key may outlive its lease by up to half a second plus a write: the short lease is 2 s and the
 * slack 2 s, as for memcached.
 */
class EtcdLockContractTest extends LockStoreContract {

  private static EtcdServer server;

  @BeforeAll
  static void startServer() {
    server = EtcdServer.start();
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
