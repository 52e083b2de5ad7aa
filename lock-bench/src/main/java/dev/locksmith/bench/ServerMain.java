package dev.locksmith.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * Runs one benchmark server in this JVM until it is stopped: {@code java -cp benchmarks.jar
 * dev.locksmith.bench.ServerMain zookeeper|postgres PORT}. Prints {@code READY <port>} on standard
 * output once the server accepts connections, stops the server on SIGTERM or when its parent
 * process ends, and exits with status 2 (and a message) on bad arguments or when the server cannot
 * start.
 */
public final class ServerMain {

  private ServerMain() {}

  /** Starts the server named by {@code args[0]} on port {@code args[1]}. */
  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !(args[0].equals("zookeeper") || args[0].equals("postgres"))) {
      System.err.println("usage: ServerMain zookeeper|postgres PORT");
      System.exit(2);
    }
    int port;
    try {
      port = Integer.parseInt(args[1]);
    } catch (NumberFormatException e) {
      System.err.println("PORT must be a number, was '" + args[1] + "'");
      System.exit(2);
      return;
    }
    Path dir = Files.createTempDirectory("locksmith-bench-" + args[0]);
    Closeable server;
    try {
      server = args[0].equals("zookeeper") ? zookeeper(port, dir) : postgres(port, dir);
    } catch (Exception e) {
      System.err.println("could not start " + args[0] + " on port " + port + ": " + e);
      e.printStackTrace();
      System.exit(2);
      return;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (IOException e) {
                    System.err.println("closing " + args[0] + ": " + e);
                  }
                }));
    System.out.println("READY " + port);
    System.out.flush();
    // Exit with the script that started us, even if it died without stopping us (SIGKILL).
    ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
    while (parent == null || parent.isAlive()) {
      Thread.sleep(1000);
    }
    System.exit(0);
  }

  private static Closeable zookeeper(int port, Path dir) throws Exception {
    // Same tick time as a real ensemble's default; the data directory is thrown away afterwards.
    return new TestingServer(
        new InstanceSpec(dir.toFile(), port, -1, -1, true, -1, 2000, -1), true);
  }

  private static Closeable postgres(int port, Path dir) throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dir)
        .setCleanDataDirectory(true)
        // Benchmarks measure the lock protocol, not the disk: fsync stays on as in production.
        .start();
  }
}
