package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import dev.locksmith.bench.Servers;
import java.util.List;
import java.util.Set;

/**
 * Opens a {@link LockTarget} by id: {@code store/impl}, where store is {@code redis}, {@code
 * memcached}, {@code zookeeper}, {@code h2} or {@code postgres} and impl is {@code locksmith},
 * {@code raw} or a peer ({@code redisson}, {@code spring}, {@code curator}, {@code shedlock}).
 */
public final class Targets {

  /** Every target id, store by store, Locksmith first. */
  public static final List<String> ALL =
      List.of(
          "redis/locksmith",
          "redis/raw",
          "redis/raw-fenced",
          "redis/redisson",
          "redis/spring",
          "memcached/locksmith",
          "memcached/locksmith-unfenced",
          "memcached/raw",
          "memcached/raw-fenced",
          "zookeeper/locksmith",
          "zookeeper/raw",
          "zookeeper/curator",
          "zookeeper/spring",
          "h2/locksmith",
          "h2/raw",
          "h2/raw-fenced",
          "h2/spring",
          "h2/shedlock",
          "postgres/locksmith",
          "postgres/raw",
          "postgres/raw-fenced",
          "postgres/spring",
          "postgres/shedlock");

  /**
   * The stores with targets of their own here (and their fixtures' names). Any other store found
   * through its fixture is benchmarked as {@code NAME/locksmith} on the URI {@code scripts/bench}
   * passes in {@code bench.uri.NAME}.
   */
  public static final Set<String> BUILT_IN_STORES =
      Set.of("redis", "memcached", "zookeeper", "h2", "postgres", "postgresql", "mem", "mariadb");

  private Targets() {}

  /** The Locksmith URI of {@code store}'s benchmark server. */
  public static String locksmithUri(String store) {
    switch (store) {
      case "redis":
        return "redis://" + Servers.redis();
      case "memcached":
        return "memcached://" + Servers.memcached();
      case "zookeeper":
        return "zookeeper://" + Servers.zookeeper() + "/locksmith-bench";
      case "h2":
        return Servers.jdbcUrl("h2");
      case "postgres":
        return Servers.jdbcUrl("postgres") + "?user=postgres";
      default:
        throw new IllegalArgumentException("unknown store '" + store + "'");
    }
  }

  /**
   * Opens the target called {@code id}.
   *
   * @throws IllegalArgumentException for an unknown id
   * @throws Exception if the client cannot connect
   */
  public static LockTarget open(String id) throws Exception {
    int slash = id.indexOf('/');
    String store = slash < 0 ? id : id.substring(0, slash);
    String impl = id.substring(slash + 1);
    String fixtureUri = System.getProperty("bench.uri." + store);
    if (impl.equals("locksmith") && !BUILT_IN_STORES.contains(store) && fixtureUri != null) {
      return new LocksmithTarget(id, fixtureUri);
    }
    if (slash < 0 || !ALL.contains(id)) {
      throw new IllegalArgumentException(
          "unknown target '"
              + id
              + "'; known: "
              + ALL
              + ", and NAME/locksmith for a store whose fixture scripts/bench started"
              + " (bench.uri.NAME)");
    }
    if (impl.equals("locksmith")) {
      return new LocksmithTarget(id, locksmithUri(store));
    }
    if (id.equals("memcached/locksmith-unfenced")) {
      // The same round trips as the raw chain: the engine's cost without the fencing token's.
      return new LocksmithTarget(id, locksmithUri(store) + "?fencing=false");
    }
    switch (id) {
      case "redis/raw":
        return new RedisTargets.Raw(Servers.redis());
      case "redis/raw-fenced":
        return new RedisTargets.RawFenced(Servers.redis());
      case "redis/redisson":
        return new RedisTargets.RedissonLock(Servers.redis());
      case "redis/spring":
        return new RedisTargets.SpringRegistry(Servers.redis());
      case "memcached/raw":
        return new MemcachedTargets.Raw(Servers.memcached());
      case "memcached/raw-fenced":
        return new MemcachedTargets.RawFenced(Servers.memcached());
      case "zookeeper/raw":
        return new ZooKeeperTargets.Raw(Servers.zookeeper());
      case "zookeeper/curator":
        return new ZooKeeperTargets.CuratorMutex(Servers.zookeeper());
      case "zookeeper/spring":
        return new ZooKeeperTargets.SpringRegistry(Servers.zookeeper());
      default:
        break;
    }
    switch (impl) {
      case "raw":
        return new JdbcTargets.Raw(store);
      case "raw-fenced":
        return new JdbcTargets.RawFenced(store);
      case "spring":
        return new JdbcTargets.SpringRegistry(store);
      case "shedlock":
        return new JdbcTargets.ShedLock(store);
      default:
        throw new IllegalArgumentException("unknown target '" + id + "'");
    }
  }
}
