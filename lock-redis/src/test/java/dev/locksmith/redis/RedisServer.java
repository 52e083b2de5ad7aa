package dev.locksmith.redis;

import dev.locksmith.redis.internal.KeyLayout;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.fixture.ServerHandle;
import dev.locksmith.tck.fixture.ServerProcess;

/**
 * A real {@code redis-server} child process for these tests: the kit's fixture plus the Redis
 * addresses and {@code redis-cli} the tests use. Pause, resume, kill and restart are real signals.
 */
public final class RedisServer extends ServerHandle {

  private RedisServer(ServerProcess process) {
    super(process);
  }

  /** Starts a server with append-only persistence plus {@code extraArgs}. */
  public static RedisServer startPersistent(String... extraArgs) {
    return new RedisServer(dev.locksmith.tck.fixture.RedisServer.startPersistent(extraArgs));
  }

  /** Starts a server that keeps nothing across a restart, plus {@code extraArgs}. */
  public static RedisServer startVolatile(String... extraArgs) {
    return new RedisServer(dev.locksmith.tck.fixture.RedisServer.startVolatile(extraArgs));
  }

  /** Starts a Redis Cluster node (nothing kept) plus {@code extraArgs}; its bus port is free. */
  public static RedisServer startClusterNode(String... extraArgs) {
    return new RedisServer(dev.locksmith.tck.fixture.RedisServer.startClusterNode(extraArgs));
  }

  /** The path of {@code redis-server}; fails with how to install it. */
  static String binary() {
    return ServerProcess.requireBinary("redis-server", "apt-get install redis-server");
  }

  static int freePort() {
    return ServerProcess.freePort();
  }

  /** {@code redis://127.0.0.1:PORT}. */
  public String uri() {
    return dev.locksmith.tck.fixture.RedisServer.uri(process);
  }

  /**
   * An operator with {@code redis-cli}: deletes the keys of a lock's holds under the default key
   * prefix, behind the lock clients' backs.
   */
  public OutsideActor outsideActor() {
    KeyLayout layout = new KeyLayout(RedisLockStore.DEFAULT_KEY_PREFIX);
    return (name, mode) -> {
      LockKey key = new LockKey(name, mode);
      cli("DEL", mode == LockMode.READ ? layout.readersKey(key) : layout.holdKey(key));
    };
  }

  /** Runs {@code redis-cli} against this server with {@code args}; returns its output. */
  public String cli(String... args) {
    return dev.locksmith.tck.fixture.RedisServer.cli(process, args);
  }
}
