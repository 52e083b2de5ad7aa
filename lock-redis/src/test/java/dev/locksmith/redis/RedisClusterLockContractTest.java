package dev.locksmith.redis;

import dev.locksmith.tck.FixtureContract;

/** The whole test kit on a real three-master Redis Cluster. */
class RedisClusterLockContractTest extends FixtureContract {
  RedisClusterLockContractTest() {
    super(RedisCluster.fixture());
  }
}
