package dev.locksmith.jdbc;

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
 * The test kit on a real MariaDB server of its own, which the kit may pause ({@code SIGSTOP}), kill
 * ({@code SIGKILL}) and restart on the same port and data directory.
 */
class MariaDbLockContractTest extends LockStoreContract {

  private static MariaDbServer server;

  @BeforeAll
  static void startServer() {
    server = MariaDbServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    // Tight driver timeouts (milliseconds), so that a paused server fails calls within
    // storeTimeout(). MariaDB's query timeout is enforced by the server, which a paused server
    // never does: the socket timeout is what ends the call.
    return LockClient.open(server.lockUri("&socketTimeout=2000&connectTimeout=2000"), options);
  }

  @Override
  protected Duration storeTimeout() {
    // A failed acquire is two store calls (the engine's clean-up release follows it), each up to
    // a pool wait (1 s) plus the socket timeout (2 s) in the worst case.
    return Duration.ofSeconds(5);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(server);
  }

  @Override
  protected Optional<OutsideActor> outsideActor() {
    return Optional.of(new JdbcOutsideActor(server.lockUri("")));
  }

  @Override
  protected Optional<String> storeUri() {
    return Optional.of(server.lockUri(""));
  }
}
