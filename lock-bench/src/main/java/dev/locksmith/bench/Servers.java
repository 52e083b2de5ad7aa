package dev.locksmith.bench;

import java.util.Objects;

/**
 * The addresses of the servers that {@code scripts/bench} started, read from system properties
 * {@code bench.redis}, {@code bench.memcached}, {@code bench.zookeeper} ({@code host:port}) and
 * {@code bench.postgres} (a port on 127.0.0.1). H2 runs in process and needs none.
 *
 * <p>Asking for a server whose property is missing fails with an {@link IllegalStateException} that
 * names the property, so a benchmark never silently measures nothing.
 */
public final class Servers {

  private Servers() {}

  /** The Redis {@code host:port}. */
  public static String redis() {
    return require("bench.redis");
  }

  /** The memcached {@code host:port}. */
  public static String memcached() {
    return require("bench.memcached");
  }

  /** The ZooKeeper {@code host:port}. */
  public static String zookeeper() {
    return require("bench.zookeeper");
  }

  /** The PostgreSQL port on 127.0.0.1. */
  public static int postgresPort() {
    return Integer.parseInt(require("bench.postgres"));
  }

  /** The JDBC URL of the benchmark database for {@code store} ({@code h2} or {@code postgres}). */
  public static String jdbcUrl(String store) {
    Objects.requireNonNull(store, "store");
    switch (store) {
      case "h2":
        // One named in-memory database per JVM, kept open while any pool is connected to it.
        return "jdbc:h2:mem:locksmith-bench;DB_CLOSE_DELAY=-1";
      case "postgres":
        return "jdbc:postgresql://127.0.0.1:" + postgresPort() + "/postgres";
      default:
        throw new IllegalArgumentException("no JDBC database called '" + store + "'");
    }
  }

  private static String require(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "system property "
              + property
              + " is not set; run the benchmarks through scripts/bench, which starts the servers"
              + " and passes their addresses");
    }
    return value.strip();
  }
}
