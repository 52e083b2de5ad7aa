package dev.locksmith.bench;

import dev.locksmith.bench.internal.Targets;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
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

  /**
   * Starts the server named by {@code args[0]} on port {@code args[1]}; or, with {@code fixture
   * NAME}, the store of that {@link StoreFixture} on a port of its choosing (it prints {@code READY
   * URI}); or, with {@code extra-fixtures}, lists the fixtures on the class path that have no
   * targets of their own here, one name a line.
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("extra-fixtures")) {
      for (StoreFixture f : StoreFixture.all()) {
        if (!Targets.BUILT_IN_STORES.contains(f.name())) {
          System.out.println(
              f.name() + f.unavailableBecause().map(why -> " unavailable: " + why).orElse(""));
        }
      }
      return;
    }
    if (args.length == 2 && args[0].equals("fixture")) {
      RunningStore store = StoreFixture.named(args[1]).start();
      Runtime.getRuntime().addShutdownHook(new Thread(store::close));
      System.out.println("READY " + store.uri());
      System.out.flush();
      awaitParent();
      return;
    }
    if (args.length != 2 || !(args[0].equals("zookeeper") || args[0].equals("postgres"))) {
      System.err.println(
          "usage: ServerMain zookeeper|postgres PORT | fixture NAME | extra-fixtures");
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
    awaitParent();
  }

  /** Exits with the script that started us, even if it died without stopping us (SIGKILL). */
  private static void awaitParent() throws InterruptedException {
    ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
    while (parent == null || parent.isAlive()) {
      Thread.sleep(1000);
    }
    System.exit(0);
  }

  private static Closeable zookeeper(int port, Path dir) throws Exception {
    // The transaction log is written but not forced to disk, as PostgreSQL below runs with fsync
    // off: every ZooKeeper goal compares clients of one server, and this VM's fsync (1-3 ms, moving
    // from one spell to the next) was the largest term of each, for every client alike. At sixteen
    // threads the disk set the pace, so even the raw client's ratio to Curator swung between 0.86x
    // and 1.27x. scripts/bench records the disk's write+fsync time beside each run's load.
    System.setProperty("zookeeper.forceSync", "no");
    // Same tick time as a real ensemble's default; the data directory is thrown away afterwards.
    return new TestingServer(
        new InstanceSpec(dir.toFile(), port, -1, -1, true, -1, 2000, -1), true);
  }

  private static Closeable postgres(int port, Path dir) throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dir)
        .setCleanDataDirectory(true)
        // The embedded server runs with zonky's defaults, fsync off (-F) and synchronous_commit=off
        // (seen in its command line): the numbers measure the lock protocol, not the disk, and are
        // higher than a production server with fsync would give, for every library alike.
        .start();
  }
}
