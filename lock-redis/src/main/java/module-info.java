/** The Redis store: single node, Sentinel, Cluster and Redlock, on Lettuce. */
module dev.locksmith.redis {
  requires transitive dev.locksmith.api;
  requires transitive lettuce.core;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.locksmith.redis;

  provides dev.locksmith.spi.LockProvider with
      dev.locksmith.redis.RedisLockProvider;
}
