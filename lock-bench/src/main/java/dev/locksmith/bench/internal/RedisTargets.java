package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
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
   * to acquire and one {@code EVALSHA} of an owner-checked delete to release, which publishes on
   * the lock's channel when a waiter subscribed to it (as Locksmith's release does). One shared
   * connection, as Lettuce is meant to be used (commands from many threads are pipelined on it).
   *
   * <p>A busy lock is waited for the shortest way Redis offers, so that its hand-off is the floor:
   * subscribe to the channel, try once more, then try again on each message (and every 100 ms in
   * case one is lost). One pub/sub message plus one {@code SET} from release to acquired.
   */
  static final class Raw implements LockTarget {
    private static final String RELEASE =
        "if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end\n"
            + "redis.call('del', KEYS[1])\n"
            + "if redis.call('pubsub', 'numsub', KEYS[1] .. ':released')[2] > 0 then\n"
            + "  redis.call('publish', KEYS[1] .. ':released', 'released')\n"
            + "end\n"
            + "return 1";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String releaseSha;
    private final String owner = UUID.randomUUID().toString();
    private final ConcurrentHashMap<String, Semaphore> waiters = new ConcurrentHashMap<>();
    private @Nullable StatefulRedisPubSubConnection<String, String> pubSub;

    Raw(String hostPort) {
      client = RedisClient.create(RedisURI.create("redis://" + hostPort));
      connection = client.connect();
      redis = connection.sync();
      releaseSha = redis.scriptLoad(RELEASE);
    }

    private synchronized StatefulRedisPubSubConnection<String, String> pubSub() {
      if (pubSub == null) {
        pubSub = client.connectPubSub();
        pubSub.addListener(
            new RedisPubSubAdapter<>() {
              @Override
              public void message(String channel, String message) {
                @Nullable Semaphore s = waiters.get(channel);
                if (s != null) {
                  s.release();
                }
              }
            });
      }
      return pubSub;
    }

    private @Nullable Held trySet(String key) {
      if (!"OK".equals(redis.set(key, owner, SetArgs.Builder.nx().px(30_000)))) {
        return null;
      }
      return () -> {
        Long released =
            redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {key}, owner);
        if (released == null || released != 1L) {
          throw new IllegalStateException("raw Redis lock " + key + " was not held");
        }
      };
    }

    /** Waits for {@code key} with one waiter per key (the hand-off harness has one). */
    private Held await(String key) throws InterruptedException {
      String channel = key + ":released";
      Semaphore wake = new Semaphore(0);
      if (waiters.putIfAbsent(channel, wake) != null) {
        throw new IllegalStateException("the raw bound waits with one waiter per lock");
      }
      try {
        pubSub().sync().subscribe(channel);
        long deadline = System.nanoTime() + MAX_WAIT_MILLIS * 1_000_000L;
        while (true) {
          Held held = trySet(key);
          if (held != null) {
            return held;
          }
          if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("could not acquire raw Redis lock " + key + " in time");
          }
          wake.tryAcquire(100, TimeUnit.MILLISECONDS);
          wake.drainPermits();
        }
      } finally {
        waiters.remove(channel);
        pubSub().async().unsubscribe(channel);
      }
    }

    @Override
    public String id() {
      return "redis/raw";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String key = "raw:" + name;
      Held held = trySet(key);
      return held != null ? held : await(key);
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      synchronized (this) {
        if (pubSub != null) {
          pubSub.close();
        }
      }
      connection.close();
      client.shutdown();
    }
  }

  /**
   * The same work as Locksmith's Redis store on bare Lettuce, to show what fencing and reentrancy
   * cost against {@link Raw}: one {@code EVALSHA} to acquire and one to release, on one shared
   * connection, with the store's key layout on one node and its scripts' commands.
   *
   * <p>The acquire script draws the fencing token as the store does since it keeps nothing per
   * name: from one counter shared by every name of the prefix ({@code raw-fenced:{}:tokens}), as
   * {@code max(counter + 1, server TIME in µs)}, above the name's per-name counter of earlier
   * versions ({@code raw-fenced:{name}:fence}) if there is one, and stores the token back (in the
   * legacy counter too when it exists); then it records the owner's hold count and token in the
   * hold hash ({@code raw-fenced:{name}:lock}) with a {@code PX} expiry, or counts a re-entry of
   * the same owner up. That is the store's acquire script command for command ({@code EXISTS},
   * {@code GET} of the counter, {@code TIME}, {@code GET} of the legacy counter, {@code SET} of the
   * counter, {@code HSET}, {@code PEXPIRE}); only its busy answer (the holder's {@code PTTL}, for
   * the engine's backoff) is left out. The release script counts a nested hold down or deletes the
   * hash, publishing on the lock's channel when a waiter subscribed. A released lock so leaves no
   * key behind: only the shared counter stays, and a counter that was lost (evicted, flushed)
   * restarts above every token handed out before. Each hold is an owner of its own (the target's id
   * and a sequence number), as in Locksmith.
   */
  static final class RawFenced implements LockTarget {
    /** The token counter shared by every name, as the store's {@code P{}:tokens} on one node. */
    static final String TOKENS = "raw-fenced:{}:tokens";

    private static final String ACQUIRE =
        "local function now_us()\n"
            + "  local t = redis.call('time')\n"
            + "  return tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
            + "end\n"
            + "if redis.call('exists', KEYS[1]) == 0 then\n"
            + "  local t = math.max(tonumber(redis.call('get', KEYS[2]) or '0') + 1, now_us())\n"
            + "  local old = redis.call('get', KEYS[3])\n"
            + "  if old then t = math.max(t, tonumber(old) + 1) end\n"
            + "  local s = string.format('%.0f', t)\n"
            + "  redis.call('set', KEYS[2], s)\n"
            + "  if old then redis.call('set', KEYS[3], s) end\n"
            + "  redis.call('hset', KEYS[1], ARGV[1], 1, 'token', s)\n"
            + "  redis.call('pexpire', KEYS[1], ARGV[2])\n"
            + "  return t\n"
            + "end\n"
            + "if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then\n"
            + "  redis.call('hincrby', KEYS[1], ARGV[1], 1)\n"
            + "  redis.call('pexpire', KEYS[1], ARGV[2])\n"
            + "  return tonumber(redis.call('hget', KEYS[1], 'token'))\n"
            + "end\n"
            + "return -1";
    private static final String RELEASE =
        "local n = redis.call('hget', KEYS[1], ARGV[1])\n"
            + "if not n then return 0 end\n"
            + "if tonumber(n) > 1 then\n"
            + "  redis.call('hincrby', KEYS[1], ARGV[1], -1)\n"
            + "  return 1\n"
            + "end\n"
            + "redis.call('del', KEYS[1])\n"
            + "if redis.call('pubsub', 'numsub', KEYS[1] .. ':released')[2] > 0 then\n"
            + "  redis.call('publish', KEYS[1] .. ':released', 'released')\n"
            + "end\n"
            + "return 2";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String acquireSha;
    private final String releaseSha;
    private final String owner = UUID.randomUUID().toString();
    private final AtomicLong holds = new AtomicLong();

    RawFenced(String hostPort) {
      client = RedisClient.create(RedisURI.create("redis://" + hostPort));
      connection = client.connect();
      redis = connection.sync();
      acquireSha = redis.scriptLoad(ACQUIRE);
      releaseSha = redis.scriptLoad(RELEASE);
    }

    /** The hold hash of {@code name}, as the store's {@code P{name}:lock}. */
    static String holdKey(String name) {
      return "raw-fenced:{" + name + "}:lock";
    }

    /** The per-name counter an earlier version kept for {@code name}: read, never created. */
    static String legacyFenceKey(String name) {
      return "raw-fenced:{" + name + "}:fence";
    }

    /** The owner of the next hold: the target's id and a sequence number, one owner per hold. */
    String ownerOfNextHold() {
      return owner + "/" + holds.incrementAndGet();
    }

    /** One attempt as {@code who}: the held lock, or null if another owner holds it. */
    @Nullable Held tryOnce(String name, String who) {
      // On one node, as the store there: the counter is not in the name's hash slot.
      String[] keys = {holdKey(name), TOKENS, legacyFenceKey(name)};
      Long token = redis.evalsha(acquireSha, ScriptOutputType.INTEGER, keys, who, "30000");
      if (token == null || token < 0) {
        return null;
      }
      return () -> {
        Long released =
            redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {keys[0]}, who);
        if (released == null || released == 0L) {
          throw new IllegalStateException(
              "raw fenced Redis lock " + keys[0] + " (token " + token + ") was not held");
        }
      };
    }

    @Override
    public String id() {
      return "redis/raw-fenced";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String who = ownerOfNextHold();
      return Waits.retry(holdKey(name), () -> tryOnce(name, who));
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
