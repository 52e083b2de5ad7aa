package dev.locksmith.jdbc;

import dev.locksmith.tck.StoreFaults;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL server (zonky's embedded binaries from Maven Central) on a fixed loopback port
 * and a data directory that survives restarts, with signal-based faults: pause is SIGSTOP of the
 * postmaster and every backend, kill is SIGKILL, restart starts it again on the same port and data.
 */
final class PostgresServer implements StoreFaults, AutoCloseable {

  private final Path dataDir;
  private final int port;
  private @Nullable EmbeddedPostgres server;

  private PostgresServer(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  static PostgresServer start() {
    try {
      PostgresServer s = new PostgresServer(Files.createTempDirectory("locksmith-pg"), freePort());
      s.restart();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  int port() {
    return port;
  }

  /** The lock URI of this server, with extra query options appended. */
  String lockUri(String extraOptions) {
    return "jdbc:postgresql://127.0.0.1:"
        + port
        + "/postgres?user=postgres&locksmith.connectionTimeout=1s"
        + extraOptions;
  }

  javax.sql.DataSource dataSource() {
    org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName("postgres");
    ds.setUser("postgres");
    ds.setConnectTimeout(2);
    ds.setSocketTimeout(10);
    return ds;
  }

  @Override
  public synchronized void pause() {
    signal("STOP");
  }

  @Override
  public synchronized void resume() {
    signal("CONT");
  }

  @Override
  public synchronized void kill() {
    signal("KILL");
    EmbeddedPostgres dead = server;
    server = null;
    if (dead != null) {
      // Releases the fixture's lock on the data directory; stopping the dead server fails.
      try {
        dead.close();
      } catch (IOException | RuntimeException expected) {
        // The server is gone already.
      }
    }
  }

  /** Stops the server cleanly (a fast shutdown), as an operator restarting it would. */
  synchronized void stop() {
    if (server != null) {
      try {
        server.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      server = null;
    }
  }

  @Override
  public synchronized void restart() {
    if (server != null) {
      return;
    }
    try {
      server =
          EmbeddedPostgres.builder()
              .setPort(port)
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              // zonky turns synchronous_commit off for speed; a killed server would then lose
              // commits that a real, durable server keeps.
              .setServerConfig("synchronous_commit", "on")
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start PostgreSQL on port " + port, e);
    }
  }

  private void signal(String signal) {
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    long postmaster = postmasterPid();
    command.add(Long.toString(postmaster));
    ProcessHandle.of(postmaster)
        .ifPresent(p -> p.descendants().forEach(d -> command.add(Long.toString(d.pid()))));
    try {
      int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
      if (exit != 0) {
        throw new IllegalStateException(command + " exited with " + exit);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private long postmasterPid() {
    try {
      return Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).strip());
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL is not running (no postmaster.pid)", e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      if (server != null) {
        resume();
      }
    } catch (RuntimeException ignored) {
      // It may be dead already.
    }
    stop();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // A temp directory left behind is harmless.
    }
  }
}
