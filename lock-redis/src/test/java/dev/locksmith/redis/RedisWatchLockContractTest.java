package dev.locksmith.redis;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.StoreFaults;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole test kit with {@code strategy=watch} on a {@code redis-server} where scripting is
 * forbidden to the lock user (so a stray script would fail the kit).
 */
class RedisWatchLockContractTest extends LockStoreContract {

  static RedisServer redis;

  @BeforeAll
  static void startRedis() {
    // On the command line, so the user survives the kit's restarts.
    redis =
        RedisServer.startPersistent(
            "--user", "noscript", "on", ">pw", "~*", "&*", "+@all", "-@scripting");
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(
        "redis://noscript:pw@127.0.0.1:" + redis.port() + "?strategy=watch", options);
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
    return Optional.of("redis://noscript:pw@127.0.0.1:" + redis.port() + "?strategy=watch");
  }
}
