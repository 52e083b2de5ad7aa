package dev.locksmith.redis;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.StoreFaults;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole test kit on one real {@code redis-server} with persistence, script strategy. */
class RedisLockContractTest extends LockStoreContract {

  static RedisServer redis;

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.startPersistent();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(redis.uri(), options);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(redis);
  }

  @Override
  protected Optional<OutsideActor> outsideActor() {
    return Optional.of(redis.outsideActor());
  }

  @Override
  protected Optional<String> storeUri() {
    return Optional.of(redis.uri());
  }
}
