package dev.locksmith.redis;

import dev.locksmith.Lease;
import dev.locksmith.LockStoreException;
import dev.locksmith.StaleTokenException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A Redis key whose value remembers the highest {@linkplain Lease#fencingToken() fencing token}
 * that wrote it and refuses writes with a lower one: a holder that lost its lock (a GC pause, a
 * stopped process) can no longer overwrite what the next holder wrote.
 *
 * <pre>{@code
 * FencedKey config = new FencedKey(redis.connect().sync(), "app:config");
 * try (Lease lease = client.lock("app:config").acquire(Duration.ofSeconds(5))) {
 *   config.write(lease.fencingToken(), json);
 * }
 * }</pre>
 *
 * <p>The key is a hash with the fields {@code value} and {@code fence}. A write is one Lua script
 * that compares the token with the stored fence and sets both fields only if the token is at least
 * the fence; the comparison is exact for every {@code long} (decimal strings, not Lua's doubles).
 * {@link #write} returns only once the value was written; it is refused with {@link
 * StaleTokenException}, naming the stored fence, when the fence is greater. An <b>equal</b> token
 * is accepted, so one holder may write several times; two holders never share a token on one lock
 * name. A missing key accepts any token. Guard each key with one lock name: tokens of different
 * names are not comparable.
 *
 * <p>One key only, so it works on a single node, a Sentinel master and a Redis Cluster alike (the
 * script runs on the key's slot; no hash tag is needed), through the synchronous commands of a
 * Lettuce connection ({@code RedisCommands} or {@code RedisAdvancedClusterCommands}, both are
 * {@link RedisClusterCommands}) with a {@code String} codec. The caller owns the connection. The
 * fence lives as long as the key: do not give the key a time to live, and keep it on a Redis that
 * does not evict ({@code noeviction}), or a lost fence would let any token write again.
 *
 * <p>A failure of Redis (unreachable, timed out, a key of another type) throws {@link
 * LockStoreException} with Lettuce's exception as cause: a timed-out write may still run later (it
 * stays fenced), but it is never reported as applied when it was not. Thread-safe as the connection
 * is.
 */
public final class FencedKey {

  // Tokens are compared as decimal strings (length, then text): Lua numbers are doubles, which
  // cannot tell apart two longs above 2^53.
  private static final String WRITE =
      """
      local fence = redis.call('HGET', KEYS[1], 'fence')
      if fence then
        if not string.match(fence, '^%d+$') then
          return redis.error_reply('ERR fence of ' .. KEYS[1] .. ' is not a token: ' .. fence)
        end
        fence = string.gsub(fence, '^0+(%d)', '%1')
        if #ARGV[1] < #fence or (#ARGV[1] == #fence and ARGV[1] < fence) then
          return {0, fence}
        end
      end
      redis.call('HSET', KEYS[1], 'value', ARGV[2], 'fence', ARGV[1])
      return {1}
      """;

  private final RedisClusterCommands<String, String> redis;
  private final String key;
  private final String sha;

  /**
   * A fenced value at {@code key}, reached through {@code redis}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code key} is empty
   */
  public FencedKey(RedisClusterCommands<String, String> redis, String key) {
    this.redis = Objects.requireNonNull(redis, "redis must not be null");
    this.key = Objects.requireNonNull(key, "key must not be null");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    this.sha = redis.digest(WRITE); // computed locally by Lettuce, no round trip
  }

  /** The Redis key. */
  public String key() {
    return key;
  }

  /**
   * Sets the value to {@code value} if {@code token} is at least the stored fence (or there is
   * none), and the fence to {@code token}. Returns only when the value was written.
   *
   * @param token the writer's {@link Lease#fencingToken()}
   * @throws StaleTokenException if the stored fence is greater than {@code token}; nothing was
   *     written
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code token} is negative
   * @throws LockStoreException if Redis failed or refused the script; the write may or may not have
   *     been applied
   */
  public void write(long token, String value) {
    if (token < 0) {
      throw new IllegalArgumentException(
          "token must not be negative, was " + token + " (pass Lease.fencingToken())");
    }
    Objects.requireNonNull(value, "value must not be null");
    String[] keys = {key};
    String offered = Long.toString(token);
    List<Object> reply;
    try {
      try {
        reply = redis.evalsha(sha, ScriptOutputType.MULTI, keys, offered, value);
      } catch (RedisNoScriptException e) {
        // A restarted or flushed server forgot the script: send it once in full.
        reply = redis.eval(WRITE, ScriptOutputType.MULTI, keys, offered, value);
      }
    } catch (RedisException e) {
      throw new LockStoreException(
          "write with token "
              + token
              + " to "
              + resource()
              + " failed; it may or may not have been applied: "
              + e.getMessage(),
          e);
    }
    if (((Long) reply.get(0)) == 0L) {
      throw new StaleTokenException(resource(), token, Long.valueOf((String) reply.get(1)));
    }
  }

  /**
   * The stored value and its fence, read together; empty if the key does not exist.
   *
   * @throws LockStoreException if Redis failed
   */
  public Optional<Stored> read() {
    List<KeyValue<String, String>> fields;
    try {
      fields = redis.hmget(key, "value", "fence");
    } catch (RedisException e) {
      throw new LockStoreException("read of " + resource() + " failed: " + e.getMessage(), e);
    }
    if (!fields.get(0).hasValue() || !fields.get(1).hasValue()) {
      return Optional.empty();
    }
    return Optional.of(
        new Stored(fields.get(0).getValue(), Long.parseLong(fields.get(1).getValue())));
  }

  /**
   * The stored fence: the highest token that wrote the value; empty if the key does not exist.
   *
   * @throws LockStoreException if Redis failed
   */
  public OptionalLong fence() {
    return read().map(s -> OptionalLong.of(s.fence())).orElse(OptionalLong.empty());
  }

  private String resource() {
    return "Redis key '" + key + "'";
  }

  /**
   * A value of a {@link FencedKey} and the token that wrote it.
   *
   * @param value the value
   * @param fence the highest token accepted so far
   */
  public record Stored(String value, long fence) {

    /** Checks the value. */
    public Stored {
      Objects.requireNonNull(value, "value must not be null");
    }
  }
}
