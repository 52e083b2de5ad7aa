package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/** The Redis targets: the raw Lettuce bound, Redisson and Spring Integration. */
final class RedisTargets {

  private RedisTargets() {}

  /**
   * The fewest round trips a correct Redis lock needs, on bare Lettuce: {@code SET key owner NX PX}
   * to acquire and one {@code EVALSHA} of an owner-checked delete to release. One shared
   * connection, as Lettuce is meant to be used (commands from many threads are pipelined on it).
   */
  static final class Raw implements LockTarget {
    private static final String RELEASE =
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
            + "else return 0 end";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String releaseSha;
    private final String owner = UUID.randomUUID().toString();

    Raw(String hostPort) {
      client = RedisClient.create(RedisURI.create("redis://" + hostPort));
      connection = client.connect();
      redis = connection.sync();
      releaseSha = redis.scriptLoad(RELEASE);
    }

    @Override
    public String id() {
      return "redis/raw";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String key = "raw:" + name;
      return Waits.retry(
          key,
          () -> {
            if (!"OK".equals(redis.set(key, owner, SetArgs.Builder.nx().px(30_000)))) {
              return null;
            }
            return () -> {
              Long deleted =
                  redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {key}, owner);
              if (deleted == null || deleted != 1L) {
                throw new IllegalStateException("raw Redis lock " + key + " was not held");
              }
            };
          });
    }

    @Override
    public boolean blocking() {
      return false;
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown();
    }
  }

  /** Redisson's {@code RLock} with its defaults (lock watchdog, pub/sub wake-ups). */
  static final class RedissonLock implements LockTarget {
    private final RedissonClient redisson;

    RedissonLock(String hostPort) {
      Config config = new Config();
      config.useSingleServer().setAddress("redis://" + hostPort);
      redisson = Redisson.create(config);
    }

    @Override
    public String id() {
      return "redis/redisson";
    }

    @Override
    public Held acquire(String name) throws InterruptedException {
      RLock lock = redisson.getLock("redisson:" + name);
      if (!lock.tryLock(MAX_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("could not acquire Redisson lock " + name + " in time");
      }
      return lock::unlock;
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      redisson.shutdown();
    }
  }

  /** Spring Integration's {@code RedisLockRegistry} with its defaults, over Lettuce. */
  static final class SpringRegistry implements LockTarget {
    private final LettuceConnectionFactory factory;
    private final RedisLockRegistry registry;

    SpringRegistry(String hostPort) {
      int colon = hostPort.lastIndexOf(':');
      factory =
          new LettuceConnectionFactory(
              new RedisStandaloneConfiguration(
                  hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))));
      factory.afterPropertiesSet();
      factory.start();
      registry = new RedisLockRegistry(factory, "spring-bench");
    }

    @Override
    public String id() {
      return "redis/spring";
    }

    @Override
    public Held acquire(String name) throws InterruptedException {
      return Waits.lock(name, registry.obtain(name));
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      registry.destroy();
      factory.destroy();
    }
  }
}
