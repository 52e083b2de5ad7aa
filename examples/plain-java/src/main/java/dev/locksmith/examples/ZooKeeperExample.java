package dev.locksmith.examples;

import dev.locksmith.LockClient;
import dev.locksmith.zookeeper.ZooKeeperLockStore;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The fencing story on ZooKeeper (lock-zookeeper), with stores built from the application's own
 * Curator clients.
 *
 * <p>A ZooKeeper lock does not expire by time: it lasts as long as its holder's session. So the
 * holder loses it the way a stalled process does, by its session ending on the server (here ended
 * on purpose, as the server would after the session timeout); the server deletes the holder's node,
 * the rival's watch fires, and the token (the node's {@code czxid}) of the rival is higher.
 *
 * <p>Run: {@code java dev.locksmith.examples.ZooKeeperExample [host:port]}, default {@value
 * #DEFAULT_CONNECT_STRING}.
 */
public final class ZooKeeperExample {

  /** The ZooKeeper connect string used when none is given on the command line. */
  public static final String DEFAULT_CONNECT_STRING = "127.0.0.1:2181";

  /** The path under which the example's locks live. */
  public static final String BASE_PATH = "/locksmith-examples";

  private ZooKeeperExample() {}

  /** Runs the example against the ZooKeeper at {@code args[0]}, or the default. */
  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : DEFAULT_CONNECT_STRING, System.out);
  }

  /** Runs the example against the ZooKeeper at {@code connectString}, printing to {@code out}. */
  public static FencingDemo.Report run(String connectString, PrintStream out) throws Exception {
    // Closed in reverse order: the lock clients first, then the Curator clients they use.
    try (CuratorFramework holderCurator = connect(connectString);
        CuratorFramework rivalCurator = connect(connectString);
        LockClient holder = LockClient.of(new ZooKeeperLockStore(holderCurator, BASE_PATH));
        LockClient rival = LockClient.of(new ZooKeeperLockStore(rivalCurator, BASE_PATH))) {
      return FencingDemo.run(
          holder,
          rival,
          lease -> endSession(holderCurator, connectString),
          new FencedStorage(),
          out);
    }
  }

  private static CuratorFramework connect(String connectString) throws InterruptedException {
    CuratorFramework curator =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(10_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .build();
    curator.start();
    if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
      curator.close();
      throw new IllegalStateException("no ZooKeeper answers at " + connectString);
    }
    return curator;
  }

  /**
   * Ends {@code curator}'s session on the server at once, as the session timeout would after a long
   * pause: a second handle joins the session with its id and password and closes it.
   */
  private static void endSession(CuratorFramework curator, String connectString) throws Exception {
    ZooKeeper original = curator.getZookeeperClient().getZooKeeper();
    CountDownLatch joined = new CountDownLatch(1);
    Watcher watcher =
        event -> {
          if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
            joined.countDown();
          }
        };
    ZooKeeper intruder =
        new ZooKeeper(
            connectString,
            original.getSessionTimeout(),
            watcher,
            original.getSessionId(),
            original.getSessionPasswd());
    try {
      if (!joined.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("could not join the holder's session to end it");
      }
    } finally {
      intruder.close();
    }
  }
}
