package dev.locksmith.jdbc;

import dev.locksmith.tck.fixture.ServerProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL server (zonky's embedded binaries from Maven Central) on a fixed loopback port
 * and a data directory that survives restarts, with signal-based faults (see {@link
 * SignalledServer}): pause is SIGSTOP of the postmaster and every backend, kill is SIGKILL of them
 * all, restart starts it again on the same port and data, where PostgreSQL recovers from its WAL.
 */
final class PostgresServer extends SignalledServer {

  private final int port;
  private @Nullable EmbeddedPostgres server;

  private PostgresServer(Path dataDir, int port) {
    super("PostgreSQL on 127.0.0.1:" + port, dataDir);
    this.port = port;
  }

  static PostgresServer start() {
    try {
      PostgresServer s =
          new PostgresServer(Files.createTempDirectory("locksmith-pg"), ServerProcess.freePort());
      s.restart();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  /** The lock URI of this server, with extra query options appended. */
  String lockUri(String extraOptions) {
    return lockUri(port, extraOptions);
  }

  /** As {@link #lockUri(String)}, for a client that reaches the server through {@code via}. */
  String lockUri(int via, String extraOptions) {
    return "jdbc:postgresql://127.0.0.1:"
        + via
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
  protected void launch() {
    try {
      server =
          EmbeddedPostgres.builder()
              .setPort(port)
              .setDataDirectory(directory())
              .setCleanDataDirectory(false)
              // zonky turns synchronous_commit off for speed; a killed server would then lose
              // commits that a real, durable server keeps.
              .setServerConfig("synchronous_commit", "on")
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start PostgreSQL on port " + port, e);
    }
  }

  @Override
  protected List<ProcessHandle> processes() {
    long postmaster = postmasterPid();
    List<ProcessHandle> all = new ArrayList<>();
    ProcessHandle.of(postmaster)
        .ifPresent(
            p -> {
              all.add(p);
              p.descendants().forEach(all::add);
            });
    return all;
  }

  @Override
  protected void shutDown(boolean killed) {
    EmbeddedPostgres s = server;
    server = null;
    if (s != null) {
      // After a kill this only releases zonky's lock on the data directory (its pg_ctl stop fails).
      try {
        s.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private long postmasterPid() {
    try {
      return Long.parseLong(
          Files.readAllLines(directory().resolve("postmaster.pid")).get(0).strip());
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL is not running (no postmaster.pid)", e);
    }
  }
}
