package dev.locksmith.jdbc;

import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * An H2 TCP server ({@code org.h2.tools.Server -tcp}) in a child JVM on a free loopback port, over
 * file databases in a directory of its own. Its {@link #faults()} are the kit's {@link
 * ServerProcess}: pause, kill and restart are real signals to the child JVM, and a database
 * survives a kill because every commit is written at once ({@code WRITE_DELAY=0} in {@link
 * #lockUri}).
 *
 * <p>The child runs the H2 jar this test runs with (found from {@code org.h2.Driver}'s code source)
 * on the JVM running the tests ({@code java.home}), so it needs nothing installed. {@link #close()}
 * stops it (also when paused) and deletes its directory; it also runs at JVM exit.
 */
final class H2TcpServer implements AutoCloseable {

  private final ServerProcess process;
  private final Path baseDir;

  private H2TcpServer(ServerProcess process, Path baseDir) {
    this.process = process;
    this.baseDir = baseDir;
    // A backstop for a test class that never reaches its @AfterAll.
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, "h2-tcp-shutdown"));
  }

  /** Starts the server; it creates a database on first connection ({@code -ifNotExists}). */
  static H2TcpServer start() {
    int port = ServerProcess.freePort();
    Path baseDir;
    try {
      baseDir = Files.createTempDirectory("locksmith-h2");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            // A small, quickly started JVM: it is restarted by the kill rules.
            "-Xmx128m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            h2Jar().toString(),
            "org.h2.tools.Server",
            "-tcp",
            "-tcpPort",
            Integer.toString(port),
            "-ifNotExists",
            "-baseDir",
            baseDir.toString());
    return new H2TcpServer(ServerProcess.start("h2-tcp", command, port, null), baseDir);
  }

  /** Pause, resume, kill and restart by signals to the server's JVM. */
  StoreFaults faults() {
    return process;
  }

  /**
   * The lock URI of the {@code locks} database, with extra query options appended. {@code
   * NETWORK_TIMEOUT} (ms) is the client's socket read timeout: without it a call to a paused server
   * would hang, since the query timeout is enforced by the server itself. {@code WRITE_DELAY=0}
   * writes every commit at once (by default H2 writes up to 500 ms later, so a {@code SIGKILL}
   * would lose the latest versions and fencing tokens could repeat); H2 does not keep this setting
   * when it reopens the database, so it is in the URL of every connection.
   */
  String lockUri(String extraOptions) {
    return "jdbc:h2:tcp://127.0.0.1:"
        + process.port()
        + "/locks;NETWORK_TIMEOUT=2000;WRITE_DELAY=0"
        + "?locksmith.connectionTimeout=1s&locksmith.queryTimeout=2s"
        + extraOptions;
  }

  @Override
  public synchronized void close() {
    process.close();
    if (Files.exists(baseDir)) {
      try (Stream<Path> files = Files.walk(baseDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // A temp directory left behind is harmless.
      }
    }
  }

  /** The jar (or classes directory) that holds H2, from the test class path. */
  private static Path h2Jar() {
    try {
      return Path.of(
          org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the H2 jar", e);
    }
  }
}
