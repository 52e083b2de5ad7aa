package dev.locksmith.redis;

import dev.locksmith.redis.fixture.RedisInspector;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real three-master Redis Cluster of {@code redis-server} child processes on loopback ports,
 * created with {@code redis-cli --cluster create}, for tests. Its faults act on every master at
 * once: the whole cluster pauses, dies, and restarts (each node keeps its slots in its {@code
 * nodes.conf}, its data is gone).
 */
public final class RedisCluster implements StoreFaults, AutoCloseable {

  private final List<RedisServer> masters = new ArrayList<>();

  /** Starts three masters and joins them into a cluster; waits until it reports ok. */
  public static RedisCluster start() {
    return start(new String[0]);
  }

  /**
   * Starts three masters with {@code extraArgs} (such as a {@code maxmemory-policy}) and joins them
   * into a cluster; waits until it reports ok.
   */
  public static RedisCluster start(String... extraArgs) {
    RedisCluster c = new RedisCluster();
    List<String> args = new ArrayList<>(List.of("--cluster-node-timeout", "2000"));
    args.addAll(List.of(extraArgs));
    for (int i = 0; i < 3; i++) {
      c.masters.add(RedisServer.startClusterNode(args.toArray(String[]::new)));
    }
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    c.masters.forEach(m -> cmd.add(m.address()));
    cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("redis-cli --cluster create failed: " + out);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!c.masters.stream()
          .allMatch(m -> m.cli("CLUSTER", "INFO").contains("cluster_state:ok"))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cluster did not become ok in 30 s");
        }
        Thread.sleep(100);
      }
    } catch (Exception e) {
      c.close();
      throw new IllegalStateException("cannot create the Redis cluster: " + e, e);
    }
    return c;
  }

  private void awaitOk() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!masters.stream().allMatch(m -> m.cli("CLUSTER", "INFO").contains("cluster_state:ok"))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the cluster did not become ok in 30 s");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the cluster", e);
      }
    }
  }

  @Override
  public void pause() {
    masters.forEach(RedisServer::pause);
  }

  @Override
  public void resume() {
    masters.forEach(RedisServer::resume);
  }

  @Override
  public void kill() {
    masters.forEach(RedisServer::kill);
  }

  @Override
  public void restart() {
    masters.forEach(RedisServer::restart);
    awaitOk();
  }

  /** {@code redis-cluster://h:p,h:p,h:p}. */
  public String uri() {
    return "redis-cluster://"
        + masters.stream().map(RedisServer::address).collect(Collectors.joining(","));
  }

  /**
   * A fixture that starts a cluster for each run; its faults act on the whole cluster, and its
   * inspector scans every master (a store keeps at most one token counter per hash slot).
   */
  static StoreFixture fixture() {
    return new StoreFixture() {
      @Override
      public String name() {
        return "redis-cluster";
      }

      @Override
      public RunningStore start() {
        RedisCluster cluster = RedisCluster.start();
        return new RunningStore() {
          @Override
          public String uri() {
            return cluster.uri();
          }

          @Override
          public Optional<StoreFaults> faults() {
            return Optional.of(cluster);
          }

          @Override
          public Optional<StoreInspector> inspector() {
            return Optional.of(cluster.inspector());
          }

          @Override
          public void close() {
            cluster.close();
          }
        };
      }
    };
  }

  /** Scans every master; a store keeps at most one token counter per hash slot (16,384). */
  public RedisInspector inspector() {
    return new RedisInspector(
        () -> masters.stream().map(RedisServer::address).toList(), SlotHash.SLOT_COUNT);
  }

  /** The masters. */
  public List<RedisServer> masters() {
    return masters;
  }

  @Override
  public void close() {
    masters.forEach(RedisServer::close);
  }
}
