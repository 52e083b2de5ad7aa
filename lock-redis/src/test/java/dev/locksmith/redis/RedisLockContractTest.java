package dev.locksmith.redis;

import dev.locksmith.redis.fixture.RedisFixture;
import dev.locksmith.tck.FixtureContract;

/** The whole test kit on a real redis-server with append-only persistence, through the provider. */
class RedisLockContractTest extends FixtureContract {
  RedisLockContractTest() {
    super(new RedisFixture());
  }
}
