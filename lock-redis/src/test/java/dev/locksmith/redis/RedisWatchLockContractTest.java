package dev.locksmith.redis;

import dev.locksmith.redis.fixture.RedisFixture;
import dev.locksmith.tck.FixtureContract;

/**
 * The whole test kit on the WATCH/MULTI strategy, as a user the server refuses scripts to: the
 * store must keep every promise without EVAL.
 */
class RedisWatchLockContractTest extends FixtureContract {
  RedisWatchLockContractTest() {
    super(RedisFixture.watchStrategy());
  }
}
