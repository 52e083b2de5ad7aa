package dev.locksmith.cli.internal;

import dev.locksmith.mem.MemLockSpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The stores the comparison can start by itself: the embedded ones (mem, H2, in-process ZooKeeper)
 * always, Redis and Memcached when their server binaries are on the PATH.
 */
public final class StoreCatalog {

  /** A store the catalog can start, and why it cannot when it cannot. */
  public record Entry(String name, Supplier<StoreTarget> start, String unavailableBecause) {
    /** Whether it can be started here. */
    public boolean available() {
      return unavailableBecause.isEmpty();
    }
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>();

  /** The catalog of this machine. */
  public static StoreCatalog local() {
    StoreCatalog c = new StoreCatalog();
    c.add(new Entry("mem", StoreCatalog::mem, ""));
    c.add(new Entry("h2", StoreCatalog::h2, ""));
    c.add(new Entry("zookeeper", StoreCatalog::zookeeper, ""));
    c.add(
        new Entry(
            "redis",
            StoreCatalog::redis,
            ServerProcess.onPath("redis-server")
                ? ""
                : "redis-server is not on the PATH (apt-get install redis-server)"));
    c.add(
        new Entry(
            "memcached",
            StoreCatalog::memcached,
            ServerProcess.onPath("memcached")
                ? ""
                : "memcached is not on the PATH (apt-get install memcached)"));
    return c;
  }

  private void add(Entry e) {
    entries.put(e.name(), e);
  }

  /** Every store the catalog knows, available here or not. */
  public List<Entry> all() {
    return new ArrayList<>(entries.values());
  }

  /** The store called {@code name}, if the catalog knows it. */
  public Entry get(String name) {
    Entry e = entries.get(name);
    if (e == null) {
      throw new IllegalArgumentException(
          "unknown store '" + name + "'; known stores: " + String.join(", ", entries.keySet()));
    }
    return e;
  }

  private static StoreTarget h2() {
    String db = "compare_" + UUID.randomUUID().toString().substring(0, 8);
    return new StoreTarget(
        "h2", "jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1", null, Duration.ofMillis(500));
  }

  private static StoreTarget zookeeper() {
    try {
      int port = ServerProcess.freePort();
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("locksmith-zk-");
      org.apache.curator.test.TestingServer server =
          new org.apache.curator.test.TestingServer(port, dir.toFile(), true);
      ServerControl control =
          new ServerControl() {
            @Override
            public boolean canPause() {
              return false;
            }

            @Override
            public void pause() {
              throw new UnsupportedOperationException("in-process ZooKeeper cannot be paused");
            }

            @Override
            public void resume() {}

            @Override
            public void kill() {
              try {
                server.stop();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }

            @Override
            public void restart() {
              try {
                server.restart();
              } catch (Exception e) {
                throw new IllegalStateException("ZooKeeper did not restart: " + e, e);
              }
            }
          };
      return new StoreTarget(
              "zookeeper",
              "zookeeper://127.0.0.1:" + port + "/locksmith?sessionTimeout=4s",
              control,
              Duration.ofMillis(500))
          .closing(server);
    } catch (Exception e) {
      throw new IllegalStateException("could not start in-process ZooKeeper: " + e, e);
    }
  }

  private static StoreTarget redis() {
    int port = ServerProcess.freePort();
    ServerProcess p =
        ServerProcess.start(
            "redis-server",
            List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                tempDir("redis").toString()),
            port);
    return new StoreTarget("redis", "redis://127.0.0.1:" + port, p, Duration.ofMillis(500))
        .closing(p);
  }

  private static StoreTarget memcached() {
    int port = ServerProcess.freePort();
    List<String> cmd =
        new ArrayList<>(
            List.of("memcached", "-l", "127.0.0.1", "-p", Integer.toString(port), "-U", "0"));
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.addAll(List.of("-u", "nobody"));
    }
    ServerProcess p = ServerProcess.start("memcached", cmd, port);
    return new StoreTarget("memcached", "memcached://127.0.0.1:" + port, p, Duration.ofSeconds(2))
        .closing(p);
  }

  private static java.nio.file.Path tempDir(String what) {
    try {
      return java.nio.file.Files.createTempDirectory("locksmith-" + what + "-");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static StoreTarget mem() {
    String space = "compare-" + UUID.randomUUID().toString().substring(0, 8);
    MemLockSpace s = MemLockSpace.named(space);
    ServerControl control =
        new ServerControl() {
          @Override
          public void pause() {
            s.outage(true);
          }

          @Override
          public void resume() {
            s.outage(false);
          }

          @Override
          public void kill() {
            s.outage(true);
            s.restart();
          }

          @Override
          public void restart() {
            s.outage(false);
          }
        };
    return new StoreTarget("mem", "mem:" + space, control, Duration.ofMillis(500));
  }
}
