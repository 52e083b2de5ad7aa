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
 * The test kit on a real PostgreSQL server of its own, which the kit may pause, kill and restart.
 */
class PostgresLockContractTest extends LockStoreContract {

  private static PostgresServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    // Tight timeouts, so that a paused server fails calls within storeTimeout(). The socket
    // timeout fires before the query timeout, whose cancel request a paused server never answers.
    return LockClient.open(
        server.lockUri(
            "&locksmith.queryTimeout=3s&socketTimeout=2&connectTimeout=2&cancelSignalTimeout=1"),
        options);
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
