package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ZooKeeper whose base path another identity owns (creator-all, world-read): the command says so
 * in one line and exits 3, with no driver log on standard error (Curator logged an ERROR with a
 * stack trace for each refused background call), and no rule or scenario runs. Each command runs in
 * a JVM of its own, as a user's does (see {@link CommandRun}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ZooKeeperRefusalTest {

  /**
   * Far beyond the one-second connection and refusal; a kit run against the store takes minutes.
   */
  private static final long CHILD_TIMEOUT_SECONDS = 60;

  private RunningStore zooKeeper;
  private String refusingUri;

  @BeforeAll
  void ownedBaseNode() throws Exception {
    StoreFixture fixture =
        StoreFixture.all().stream()
            .filter(f -> f.name().equals("zookeeper"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no zookeeper fixture on the class path"));
    zooKeeper = fixture.start();
    String uri = zooKeeper.uri();
    String hostPort =
        uri.substring("zookeeper://".length(), uri.indexOf('/', "zookeeper://".length()));
    List<ACL> ownerOnly = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
    ownerOnly.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
    try (CuratorFramework alice =
        CuratorFrameworkFactory.builder()
            .connectString(hostPort)
            .retryPolicy(new RetryOneTime(100))
            .authorization("digest", "alice:s3cret".getBytes(StandardCharsets.UTF_8))
            .build()) {
      alice.start();
      assertThat(alice.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
      alice.create().withACL(ownerOnly).forPath("/owned");
    }
    refusingUri = "zookeeper://" + hostPort + "/owned";
  }

  @AfterAll
  void stop() throws Exception {
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  @Test
  @DisplayName(
      "tck on a base path another identity owns: one line naming the refusal, exit 3, no Curator"
          + " ERROR and no stack trace, no rule run")
  void tckRefused(@TempDir Path dir) throws Exception {
    CommandRun run = CommandRun.of(dir, List.of("tck", "--uri", refusingUri));
    assertThat(run.code()).as("%s", run).isEqualTo(Locksmith.EXIT_STORE_UNAVAILABLE);
    assertThat(run.stderr()).as("%s", run).hasSize(1);
    assertThat(run.stderr().get(0))
        .startsWith("cannot lock on " + refusingUri + ": ")
        .contains("the store refused it", "NoAuth");
    assertThat(run.stdout()).doesNotContain("Rule ");
  }

  @Test
  @DisplayName(
      "compare --uri on a base path another identity owns: one line naming the refusal, exit 3, no"
          + " Curator ERROR, no report written")
  void compareRefused(@TempDir Path dir) throws Exception {
    CommandRun run =
        CommandRun.of(
            dir,
            List.of(
                "compare",
                "--uri",
                "zk=" + refusingUri,
                "--out",
                dir.resolve("report").toString()));
    assertThat(run.code()).as("%s", run).isEqualTo(Locksmith.EXIT_STORE_UNAVAILABLE);
    assertThat(run.stderr()).as("%s", run).hasSize(1);
    assertThat(run.stderr().get(0))
        .startsWith("--uri zk=" + refusingUri + ": cannot lock on ")
        .contains("NoAuth");
    assertThat(run.stdout()).isEmpty();
    assertThat(dir.resolve("report")).doesNotExist();
  }
}
