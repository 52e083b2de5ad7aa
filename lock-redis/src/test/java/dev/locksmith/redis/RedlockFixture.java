package dev.locksmith.redis;

import dev.locksmith.redis.fixture.RedisInspector;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Redlock over five real, independent masters with AOF persistence. The faults hit a majority
 * (three of five) at once: the store is then unavailable as a whole. The inspector scans every
 * master; a store keeps one token counter per master.
 */
final class RedlockFixture implements StoreFixture {

  @Override
  public String name() {
    return "redlock";
  }

  @Override
  public RunningStore start() {
    List<RedisServer> masters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      masters.add(RedisServer.startPersistent());
    }
    List<RedisServer> majority = masters.subList(0, 3);
    StoreFaults faults =
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
        };
    String uri =
        "redlock://" + masters.stream().map(RedisServer::address).collect(Collectors.joining(","));
    RedisInspector inspector =
        new RedisInspector(
            () -> masters.stream().map(RedisServer::address).toList(), masters.size());
    return new RunningStore() {
      @Override
      public String uri() {
        return uri;
      }

      @Override
      public Optional<StoreFaults> faults() {
        return Optional.of(faults);
      }

      @Override
      public Optional<StoreInspector> inspector() {
        return Optional.of(inspector);
      }

      @Override
      public void close() {
        masters.forEach(RedisServer::close);
      }
    };
  }
}
