package dev.locksmith.zookeeper;

import dev.locksmith.tck.FixtureContract;
import dev.locksmith.zookeeper.fixture.ZooKeeperFixture;

/** The whole test kit on a real (in-process) ZooKeeper server with a 3 s session. */
class ZooKeeperLockContractTest extends FixtureContract {
  ZooKeeperLockContractTest() {
    super(new ZooKeeperFixture());
  }
}
