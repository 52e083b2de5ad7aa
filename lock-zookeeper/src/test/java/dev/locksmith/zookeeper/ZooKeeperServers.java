package dev.locksmith.zookeeper;

import static org.awaitility.Awaitility.await;

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
import org.apache.zookeeper.util.ServiceUtils;

/**
 * Real, in-process ZooKeeper servers for the tests (Curator's {@code curator-test}), tuned to be
 * quick: a 500 ms tick (sessions of 1 to 10 s) and a container reaper that runs every 200 ms.
 *
 * <p>Servers and ensembles are handed out only once they serve, as their four-letter word {@code
 * srvr} tells: a started server process may still be loading its data, and a fresh ensemble may
 * still be electing its leader, during which no client can connect.
 */
final class ZooKeeperServers {

  static final int TICK_MS = 500;

  /**
   * How long a server or an ensemble may take to become ready: an election takes a few ticks on an
   * idle machine, and far longer on a loaded 2-core CI machine.
   */
  static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  /** How long a test's Curator client waits for a connection: generous, for loaded machines. */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(10);

  static {
    // Read by the in-process servers when they start: reap empty container nodes quickly, and
    // answer the "srvr" four-letter word so that tests can find the leader.
    System.setProperty("znode.container.checkIntervalMs", "200");
    System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    System.setProperty("zookeeper.admin.enableServer", "false");
    // A member's election port is picked free before the member binds it, and on a busy machine
    // another socket (often an outgoing connection of a peer) may hold it for a while: keep
    // trying for 30 s (one try a second) instead of 3 s.
    System.setProperty("zookeeper.electionPortBindRetry", "30");
    // A member that still cannot bind must fail its test (the ensemble never gets ready and the
    // wait says so), not end the whole test JVM, which ZooKeeper does by default.
    ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
  }

  private ZooKeeperServers() {}

  /** A started single server on a free loopback port, serving. */
  static TestingServer server() throws Exception {
    TestingServer server =
        new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1), true);
    try {
      awaitServing(server);
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** Waits until {@code server} (started or restarted) answers {@code srvr} with its mode. */
  static void awaitServing(TestingServer server) {
    int port = server.getPort();
    await("ZooKeeper server on port " + port + " answering 'srvr' with its mode")
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> mode(port), m -> m.equals("standalone"));
  }

  /** A started ensemble of {@code size} servers, with a leader elected and every member serving. */
  static TestingCluster cluster(int size) throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= size; id++) {
      specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, -1));
    }
    TestingCluster cluster = new TestingCluster(specs);
    try {
      cluster.start();
      awaitLeader(cluster);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /**
   * Waits until exactly one member of {@code cluster} reports {@code Mode: leader} and every other
   * member that is up reports {@code Mode: follower}: after a start, or after a test killed or
   * restarted members. A member that is down (killed, and not restarted) is left out; a member that
   * is up but still electing or syncing answers without a mode and keeps the wait going.
   */
  static void awaitLeader(TestingCluster cluster) {
    await("one leader and only followers besides it in the ensemble " + cluster.getConnectString())
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> modes(cluster), ZooKeeperServers::electedAndSynced);
  }

  private static List<String> modes(TestingCluster cluster) {
    List<String> modes = new ArrayList<>();
    for (InstanceSpec spec : cluster.getInstances()) {
      modes.add(mode(spec));
    }
    return modes;
  }

  private static boolean electedAndSynced(List<String> modes) {
    int leaders = 0;
    int up = 0;
    for (String m : modes) {
      if (m.equals("down")) {
        continue;
      }
      up++;
      if (m.equals("leader")) {
        leaders++;
      } else if (!m.equals("follower")) {
        return false;
      }
    }
    return leaders == 1 && up > modes.size() / 2;
  }

  /** A started Curator client, connected, with the given session timeout. */
  static CuratorFramework curator(String connectString, Duration sessionTimeout) throws Exception {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs((int) CONNECTION_TIMEOUT.toMillis())
            .retryPolicy(new RetryNTimes(3, 500))
            .build();
    c.start();
    if (!c.blockUntilConnected((int) CONNECTION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      c.close();
      throw new IllegalStateException(
          "no ZooKeeper at " + connectString + " within " + CONNECTION_TIMEOUT);
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
      if (!connected.await(CONNECTION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("could not join the session to expire it");
      }
    } finally {
      intruder.close();
    }
  }

  /**
   * The mode the server of {@code spec} answers to {@code srvr} ({@code leader}, {@code follower},
   * {@code standalone}), "unknown" if it answers without one (not serving yet), or "down".
   */
  static String mode(InstanceSpec spec) {
    return mode(spec.getPort());
  }

  /** The mode of the server on the loopback {@code port}, as {@link #mode(InstanceSpec)}. */
  static String mode(int port) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5000); // A busy server answers late; a late answer only delays the poll.
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
