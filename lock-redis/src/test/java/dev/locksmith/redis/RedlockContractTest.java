package dev.locksmith.redis;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.StoreFaults;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole test kit on Redlock over five real, independent masters with AOF persistence (so a
 * restarted master keeps its locks and may vote at once). The faults hit a majority (three of five)
 * at once: the store is then unavailable as a whole.
 */
class RedlockContractTest extends LockStoreContract {

  static final List<RedisServer> masters = new ArrayList<>();

  @BeforeAll
  static void startMasters() {
    for (int i = 0; i < 5; i++) {
      masters.add(RedisServer.startPersistent());
    }
  }

  @AfterAll
  static void stopMasters() {
    masters.forEach(RedisServer::close);
    masters.clear();
  }

  static String uri() {
    return "redlock://"
        + masters.stream().map(RedisServer::address).collect(Collectors.joining(","));
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(uri(), options);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    List<RedisServer> majority = masters.subList(0, 3);
    return Optional.of(
        new StoreFaults() {
          @Override
          public void pause() {
            majority.forEach(RedisServer::pause);
          }

          @Override
          public void resume() {
            majority.forEach(RedisServer::resume);
          }

          @Override
          public void kill() {
            majority.forEach(RedisServer::kill);
          }

          @Override
          public void restart() {
            majority.forEach(RedisServer::restart);
          }
        });
  }

  @Override
  protected Optional<String> storeUri() {
    return Optional.of(uri());
  }
}
