package dev.locksmith.spring;

import dev.locksmith.tck.fixture.RedisServer;
import dev.locksmith.tck.fixture.ServerProcess;

/**
 * One real {@code redis-server} for the test classes of this JVM that do not stop their store,
 * started on first use and stopped when the JVM exits. Test classes close their Spring contexts
 * when they end, so no context outlives it.
 */
final class SharedRedis {

  private static ServerProcess server;

  private SharedRedis() {}

  static synchronized ServerProcess server() {
    if (server == null) {
      ServerProcess started = RedisServer.startVolatile();
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "stop-redis"));
      server = started;
    }
    return server;
  }

  static String uri() {
    return RedisServer.uri(server());
  }

  /** Deletes every key: every lock disappears, as in a store that lost its data. */
  static void dropEverything() {
    RedisServer.cli(server(), "FLUSHALL");
  }
}
