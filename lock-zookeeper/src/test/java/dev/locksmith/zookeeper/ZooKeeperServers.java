package dev.locksmith.zookeeper;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Real, in-process ZooKeeper servers for the tests (Curator's {@code curator-test}), tuned to be
 * quick: a 500 ms tick (sessions of 1 to 10 s) and a container reaper that runs every 200 ms.
 */
final class ZooKeeperServers {

  static final int TICK_MS = 500;

  static {
    // Read by the in-process servers when they start: reap empty container nodes quickly, and
    // answer the "srvr" four-letter word so that tests can find the leader.
    System.setProperty("znode.container.checkIntervalMs", "200");
    System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    System.setProperty("zookeeper.admin.enableServer", "false");
  }

  private ZooKeeperServers() {}

  /** A started single server on a free loopback port. */
  static TestingServer server() throws Exception {
    return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1), true);
  }

  /** A started ensemble of {@code size} servers. */
  static TestingCluster cluster(int size) throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= size; id++) {
      specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, -1));
    }
    TestingCluster cluster = new TestingCluster(specs);
    cluster.start();
    return cluster;
  }

  /** A started Curator client, connected, with a short session. */
  static CuratorFramework curator(String connectString, Duration sessionTimeout) throws Exception {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs(2000)
            .retryPolicy(new RetryNTimes(2, 100))
            .build();
    c.start();
    if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
      c.close();
      throw new IllegalStateException("no ZooKeeper at " + connectString);
    }
    return c;
  }

  /**
   * Ends {@code curator}'s session on the server, as an expiry would: a second handle joins the
   * session with its id and password and closes it, so the server deletes its ephemeral nodes and
   * the original client is told its session expired when it next talks to the server.
   */
  static void expireSession(CuratorFramework curator, String connectString) throws Exception {
    ZooKeeper original = curator.getZookeeperClient().getZooKeeper();
    CountDownLatch connected = new CountDownLatch(1);
    Watcher watcher =
        event -> {
          if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
            connected.countDown();
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
      if (!connected.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("could not join the session to expire it");
      }
    } finally {
      intruder.close();
    }
  }

  /** The server's mode ({@code leader}, {@code follower}, {@code standalone}), or "down". */
  static String mode(InstanceSpec spec) {
    try (Socket s = new Socket("127.0.0.1", spec.getPort())) {
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("Mode: ")) {
          return line.substring("Mode: ".length()).trim();
        }
      }
      return "unknown";
    } catch (Exception e) {
      return "down";
    }
  }
}
