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
 * The test kit on an H2 TCP server in a child JVM ({@link H2TcpServer}, a file database), which the
 * kit may pause ({@code SIGSTOP}), kill ({@code SIGKILL}) and restart on the same port and
 * directory, so that the fault and durable-fencing rules run on H2 too.
 *
 * <p>This replaces running the kit on an in-process {@code jdbc:h2:mem:} database, which cannot be
 * paused or killed without the test JVM; the embedded in-memory path stays covered by {@link
 * H2JdbcStoreTest} and {@link JdbcLockProviderTest} (and by the CLI's tests).
 */
class H2LockContractTest extends LockStoreContract {

  private static H2TcpServer server;

  @BeforeAll
  static void startServer() {
    server = H2TcpServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(server.lockUri(""), options);
  }

  @Override
  protected Duration storeTimeout() {
    // A failed acquire is two store calls (the engine's clean-up release follows it), each up to
    // a pool wait (1 s) plus the network timeout (2 s) in the worst case.
    return Duration.ofSeconds(5);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(server.faults());
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
