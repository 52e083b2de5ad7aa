package dev.locksmith.redis.internal;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;

/**
 * The script strategy: every operation is one {@code EVALSHA} of a {@link LockScripts} script, so
 * an acquire is one round trip. A server that lost its script cache (a restart, {@code SCRIPT
 * FLUSH}) answers {@code NOSCRIPT}, and the script is then sent once with {@code EVAL}, which
 * caches it again. Works on a single node and on a cluster (all keys of a name share a slot).
 */
public final class ScriptOperations implements LockOperations {

  /** When a release publishes on its channel. */
  public enum Wake {
    /** Only when the server counts a subscriber: one server that all waiters subscribe on. */
    WHEN_SUBSCRIBED("subscribed"),
    /** On every release: a cluster, whose subscribers may be on any node. */
    ALWAYS("always");

    private final String scriptArgument;

    Wake(String scriptArgument) {
      this.scriptArgument = scriptArgument;
    }
  }

  private final RedisClusterCommands<String, String> redis;
  private final KeyLayout layout;
  private final String wake;

  /**
   * Runs the scripts with {@code redis} over {@code layout}, waking waiters as {@code wake} says.
   */
  public ScriptOperations(RedisClusterCommands<String, String> redis, KeyLayout layout, Wake wake) {
    this.redis = redis;
    this.layout = layout;
    this.wake = wake.scriptArgument;
  }

  private <T> T run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
    try {
      return redis.evalsha(script.sha(), type, keys, args);
    } catch (RedisNoScriptException e) {
      return redis.eval(script.source(), type, keys, args);
    }
  }

  @Override
  public Acquisition acquire(LockKey key, String owner, long leaseMillis) {
    String lease = Long.toString(leaseMillis);
    String field = KeyLayout.ownerField(owner);
    List<Object> reply;
    switch (key.mode()) {
      case EXCLUSIVE:
        reply =
            run(
                LockScripts.ACQUIRE,
                ScriptOutputType.MULTI,
                new String[] {layout.holdKey(key), layout.fenceKey(key)},
                field,
                lease);
        break;
      case WRITE:
        reply =
            run(
                LockScripts.ACQUIRE_WRITE,
                ScriptOutputType.MULTI,
                layout.readWriteKeys(key),
                field,
                lease,
                owner);
        break;
      default:
        reply =
            run(
                LockScripts.ACQUIRE_READ,
                ScriptOutputType.MULTI,
                layout.readWriteKeys(key),
                field,
                lease,
                owner);
        break;
    }
    return Replies.acquisition(reply);
  }

  @Override
  public boolean extend(LockKey key, String owner, long leaseMillis) {
    String lease = Long.toString(leaseMillis);
    Long ok =
        key.mode() == LockMode.READ
            ? run(
                LockScripts.EXTEND_READ,
                ScriptOutputType.INTEGER,
                new String[] {layout.readersKey(key)},
                owner,
                lease)
            : run(
                LockScripts.EXTEND,
                ScriptOutputType.INTEGER,
                new String[] {layout.holdKey(key)},
                KeyLayout.ownerField(owner),
                lease);
    return ok != null && ok == 1;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    Long code =
        key.mode() == LockMode.READ
            ? run(
                LockScripts.RELEASE_READ,
                ScriptOutputType.INTEGER,
                new String[] {layout.readersKey(key)},
                owner,
                layout.channel(key),
                wake)
            : run(
                LockScripts.RELEASE,
                ScriptOutputType.INTEGER,
                new String[] {layout.holdKey(key)},
                KeyLayout.ownerField(owner),
                layout.channel(key),
                wake);
    return Replies.release(code == null ? 0 : code);
  }

  @Override
  public LockState read(LockKey key) {
    String[] keys =
        key.mode() == LockMode.EXCLUSIVE
            ? new String[] {layout.holdKey(key)}
            : new String[] {layout.holdKey(key), layout.readersKey(key)};
    List<Object> reply = run(LockScripts.READ, ScriptOutputType.MULTI, keys);
    return Replies.state(reply);
  }

  @Override
  public void withdraw(LockKey key, String owner) {
    if (key.mode() != LockMode.WRITE) {
      return;
    }
    run(
        LockScripts.WITHDRAW,
        ScriptOutputType.INTEGER,
        new String[] {layout.waitingKey(key)},
        owner,
        layout.channel(key),
        wake);
  }
}
