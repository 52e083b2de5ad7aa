package dev.locksmith.cli.internal;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.fixture.MemcachedServer;
import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;
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

  /** The names {@code --stores} takes, for the help text; {@link #local()} knows the same ones. */
  public static final class Names implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return List.of("mem", "h2", "zookeeper", "redis", "memcached").iterator();
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
            ServerProcess.findBinary("redis-server").isPresent()
                ? ""
                : "redis-server is not on the PATH (apt-get install redis-server)"));
    c.add(
        new Entry(
            "memcached",
            StoreCatalog::memcached,
            ServerProcess.findBinary("memcached").isPresent()
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
        "h2", "jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1", null, false, Duration.ofMillis(500));
  }

  private static StoreTarget zookeeper() {
    try {
      int port = ServerProcess.freePort();
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("locksmith-zk-");
      org.apache.curator.test.TestingServer server =
          new org.apache.curator.test.TestingServer(port, dir.toFile(), true);
      StoreFaults control =
          new StoreFaults() {
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
              false,
              Duration.ofMillis(500))
          .closing(server);
    } catch (Exception e) {
      throw new IllegalStateException("could not start in-process ZooKeeper: " + e, e);
    }
  }

  private static StoreTarget redis() {
    ServerProcess p = RedisServer.startPersistent();
    // lock-redis bounds each reconnect handshake by 1 s, and its timer lingers that long; 2.5 s
    // leaves room for a busy machine's timer thread.
    return new StoreTarget("redis", RedisServer.uri(p), p, true, Duration.ofMillis(500))
        .reconnectSettle(Duration.ofMillis(2500))
        .closing(p);
  }

  private static StoreTarget memcached() {
    ServerProcess p = MemcachedServer.start(64);
    return new StoreTarget("memcached", MemcachedServer.uri(p), p, true, Duration.ofSeconds(2))
        .closing(p);
  }

  private static StoreTarget mem() {
    String space = "compare-" + UUID.randomUUID().toString().substring(0, 8);
    MemLockSpace s = MemLockSpace.named(space);
    StoreFaults control =
        new StoreFaults() {
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
    return new StoreTarget("mem", "mem:" + space, control, true, Duration.ofMillis(500));
  }
}
