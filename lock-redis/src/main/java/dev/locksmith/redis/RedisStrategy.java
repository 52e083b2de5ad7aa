package dev.locksmith.redis;

/**
 * How a {@link RedisLockStore} makes its operations atomic; chosen with the URI option {@code
 * strategy=script|watch}. Both keep the same data under the same keys and pass the same test kit.
 */
public enum RedisStrategy {
  /**
   * One Lua script per operation ({@code EVALSHA}, falling back to {@code EVAL} on {@code
   * NOSCRIPT}): an acquire is one round trip. The default.
   */
  SCRIPT,
  /**
   * Optimistic {@code WATCH}/{@code MULTI}/{@code EXEC} transactions, for servers that forbid
   * scripting. Needs Redis 6.0.9 or later (watched keys that expire abort the transaction) and a
   * single node (not a cluster); an acquire takes a few round trips and retries under contention.
   */
  WATCH
}
