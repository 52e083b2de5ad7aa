package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.zookeeper.fixture.ZooKeeperServers;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The fixtures hand out servers only once they serve: the other tests rely on it. */
class ZooKeeperServersTest {

  @Test
  @DisplayName("a server is returned only once it answers 'srvr' with its mode")
  void serverIsReady() throws Exception {
    try (TestingServer server = ZooKeeperServers.server()) {
      assertThat(ZooKeeperServers.mode(server.getPort())).isEqualTo("standalone");
    }
  }

  @Test
  @DisplayName(
      "an ensemble is returned only once one member leads and every other member follows, and"
          + " again after its leader is killed")
  void clusterIsReady() throws Exception {
    try (TestingCluster cluster = ZooKeeperServers.cluster(3)) {
      List<String> modes = modes(cluster);
      assertThat(modes).containsExactlyInAnyOrder("leader", "follower", "follower");

      InstanceSpec leader = List.copyOf(cluster.getInstances()).get(modes.indexOf("leader"));
      cluster.killServer(leader);
      ZooKeeperServers.awaitLeader(cluster);
      assertThat(modes(cluster)).containsExactlyInAnyOrder("down", "leader", "follower");
    }
  }

  private static List<String> modes(TestingCluster cluster) {
    List<String> modes = new ArrayList<>();
    for (InstanceSpec spec : cluster.getInstances()) {
      modes.add(ZooKeeperServers.mode(spec));
    }
    return modes;
  }
}
