package dev.locksmith.jdbc;

import dev.locksmith.jdbc.fixture.H2Fixture;
import dev.locksmith.jdbc.fixture.JdbcInspector;
import dev.locksmith.jdbc.fixture.JdbcOutsideActor;
import dev.locksmith.tck.ClientLinks;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.ProxiedLinks;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * PostgreSQL and MariaDB servers of their own (embedded binaries, see {@link PostgresServer} and
 * {@link MariaDbServer}) as kit fixtures, which the kit may pause ({@code SIGSTOP}), kill ({@code
 * SIGKILL}) and restart on the same port and data directory. Their clients sweep every {@link
 * H2Fixture#SWEEP_INTERVAL}; the inspector counts and deletes rows with SQL ({@link
 * JdbcInspector}), and each linked client reaches the server through a proxy of its own. Not
 * registered for {@code ServiceLoader}: {@code locksmith compare} shows JDBC on H2, which starts in
 * a second.
 */
final class DatabaseFixtures {

  private DatabaseFixtures() {}

  /**
   * PostgreSQL with tight timeouts, so that a paused server fails calls within the store timeout.
   * The socket timeout fires before the query timeout, whose cancel request a paused server never
   * answers.
   */
  static StoreFixture postgres() {
    return fixture(
        "postgresql",
        () -> {
          PostgresServer server = PostgresServer.start();
          String options =
              "&locksmith.queryTimeout=3s&socketTimeout=2&connectTimeout=2&cancelSignalTimeout=1"
                  + H2Fixture.SWEEP_OPTION;
          return new Started(
              server,
              server.lockUri(options),
              server.lockUri(""),
              new ProxiedLinks("127.0.0.1", server.port(), port -> server.lockUri(port, options)));
        });
  }

  /**
   * MariaDB with tight driver timeouts (milliseconds). Its query timeout is enforced by the server,
   * which a paused server never does: the socket timeout is what ends the call.
   */
  static StoreFixture mariaDb() {
    return fixture(
        "mariadb",
        () -> {
          MariaDbServer server = MariaDbServer.start();
          String options = "&socketTimeout=2000&connectTimeout=2000" + H2Fixture.SWEEP_OPTION;
          return new Started(
              server,
              server.lockUri(options),
              server.lockUri(""),
              new ProxiedLinks("127.0.0.1", server.port(), port -> server.lockUri(port, options)));
        });
  }

  private record Started(
      SignalledServer server, String clientUri, String plainUri, ProxiedLinks links) {}

  private static StoreFixture fixture(String name, Supplier<Started> start) {
    return new StoreFixture() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public RunningStore start() {
        Started s = start.get();
        JdbcInspector inspector = new JdbcInspector(s.plainUri(), H2Fixture.SWEEP_INTERVAL);
        return new RunningStore() {
          @Override
          public String uri() {
            return s.clientUri();
          }

          /**
           * A failed acquire is two store calls (the engine's clean-up release follows it), each up
           * to a pool wait (1 s) plus the socket timeout (2 s) in the worst case.
           */
          @Override
          public Duration storeTimeout() {
            return Duration.ofSeconds(5);
          }

          @Override
          public Optional<StoreFaults> faults() {
            return Optional.of(s.server());
          }

          @Override
          public Optional<OutsideActor> outsideActor() {
            return Optional.of(new JdbcOutsideActor(s.plainUri()));
          }

          @Override
          public Optional<ClientLinks> links() {
            return Optional.of(s.links());
          }

          @Override
          public Optional<StoreInspector> inspector() {
            return Optional.of(inspector);
          }

          @Override
          public void close() {
            s.links().close();
            s.server().close();
          }
        };
      }
    };
  }
}
