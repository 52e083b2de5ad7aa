package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/** The ZooKeeper targets: the raw Curator bound, {@code InterProcessMutex}, Spring Integration. */
final class ZooKeeperTargets {

  private ZooKeeperTargets() {}

  /** A started Curator client with the same settings as Locksmith's ZooKeeper store. */
  static CuratorFramework curator(String hostPort) throws InterruptedException {
    CuratorFramework curator =
        CuratorFrameworkFactory.builder()
            .connectString(hostPort)
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(3_000)
            .retryPolicy(new RetryNTimes(2, 100))
            .build();
    curator.start();
    if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
      curator.close();
      throw new IllegalStateException("could not connect to ZooKeeper at " + hostPort);
    }
    return curator;
  }

  /**
   * The fewest round trips of the ephemeral-sequential lock on bare Curator: create an {@code
   * EPHEMERAL_SEQUENTIAL} node under the lock's path and, without waiting for its answer, {@code
   * getChildren} to see that it is the lowest; delete it to release. A node that is not the lowest
   * watches the node right before it ({@code exists}) and, if that one was the lowest, holds on its
   * deletion with no further request (every node created later sorts after ours): the hand-off
   * floor, the holder's {@code delete} and one watch event.
   */
  static final class Raw implements LockTarget {
    private final CuratorFramework curator;

    Raw(String hostPort) throws InterruptedException {
      this(curator(hostPort));
    }

    /** On a started client, which {@link #close()} closes. */
    Raw(CuratorFramework curator) {
      this.curator = curator;
    }

    @Override
    public String id() {
      return "zookeeper/raw";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String parent = "/raw-bench/" + name;
      CompletableFuture<String> created = new CompletableFuture<>();
      curator
          .create()
          .creatingParentContainersIfNeeded()
          .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
          .inBackground(
              (client, event) -> {
                KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                if (code == KeeperException.Code.OK) {
                  created.complete(event.getName());
                } else {
                  created.completeExceptionally(KeeperException.create(code, parent));
                }
              })
          .forPath(parent + "/lock-");
      // Sent before the create is answered, as Locksmith does: one session's answers come in
      // order, so the listing shows the new node (unless the parent had to be made).
      List<String> children;
      try {
        children = curator.getChildren().forPath(parent);
      } catch (KeeperException.NoNodeException e) {
        children = List.of();
      }
      String path = created.get(MAX_WAIT_MILLIS, TimeUnit.MILLISECONDS);
      String mine = path.substring(parent.length() + 1);
      long deadline = System.nanoTime() + MAX_WAIT_MILLIS * 1_000_000L;
      while (true) {
        List<String> sorted = children.stream().sorted().toList();
        int place = sorted.indexOf(mine);
        if (place == 0) {
          return () -> {
            try {
              curator.delete().forPath(path);
            } catch (KeeperException.NoNodeException e) {
              throw new IllegalStateException("raw ZooKeeper lock " + path + " was not held", e);
            }
          };
        }
        if (place < 0) {
          children = curator.getChildren().forPath(parent);
          continue;
        }
        if (!awaitDeleted(parent + "/" + sorted.get(place - 1), deadline)) {
          curator.delete().quietly().forPath(path);
          throw new IllegalStateException(
              "could not acquire raw ZooKeeper lock " + name + " in time");
        }
        // Right behind the lowest, its deletion makes ours the lowest: later nodes sort after it.
        children = place == 1 ? List.of(mine) : curator.getChildren().forPath(parent);
      }
    }

    /** Whether {@code path} was deleted (before or after the watch was set) by {@code deadline}. */
    private boolean awaitDeleted(String path, long deadline) throws Exception {
      CountDownLatch deleted = new CountDownLatch(1);
      Watcher onDelete =
          event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
              deleted.countDown();
            }
          };
      Stat stat = curator.checkExists().usingWatcher(onDelete).forPath(path);
      return stat == null || deleted.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      curator.close();
    }
  }

  /** Curator's {@code InterProcessMutex}, one per acquire as a user who holds no cache would. */
  static final class CuratorMutex implements LockTarget {
    private final CuratorFramework curator;

    CuratorMutex(String hostPort) throws InterruptedException {
      curator = curator(hostPort);
    }

    @Override
    public String id() {
      return "zookeeper/curator";
    }

    @Override
    public Held acquire(String name) throws Exception {
      InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-bench/" + name);
      if (!mutex.acquire(MAX_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("could not acquire InterProcessMutex " + name + " in time");
      }
      return mutex::release;
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      curator.close();
    }
  }

  /** Spring Integration's {@code ZookeeperLockRegistry} (an {@code InterProcessMutex} per key). */
  static final class SpringRegistry implements LockTarget {
    private final CuratorFramework curator;
    private final ZookeeperLockRegistry registry;

    SpringRegistry(String hostPort) throws InterruptedException {
      curator = curator(hostPort);
      registry = new ZookeeperLockRegistry(curator, "/spring-bench");
    }

    @Override
    public String id() {
      return "zookeeper/spring";
    }

    @Override
    public Held acquire(String name) throws InterruptedException {
      return Waits.lock(name, registry.obtain(name));
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      registry.destroy();
      curator.close();
    }
  }
}
