package dev.locksmith.redis.internal;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The script strategy: every operation is one {@code EVALSHA} of a {@link LockScripts} script, so
 * an acquire is one round trip. A server that lost its script cache (a restart, {@code SCRIPT
 * FLUSH}) answers {@code NOSCRIPT}, and the script is then sent once with {@code EVAL}, which
 * caches it again. Works on a single node and on a cluster (all keys of a name share a slot).
 * Renewals of many leases are pipelined: {@link #extendAll} is one round trip for the batch.
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
  private final RedisClusterAsyncCommands<String, String> pipelined;
  private final long timeoutNanos;
  private final KeyLayout layout;
  private final String wake;

  /**
   * Runs the scripts on {@code endpoint}'s shared connection over {@code layout}, waking waiters as
   * {@code wake} says.
   */
  public ScriptOperations(RedisEndpoint endpoint, KeyLayout layout, Wake wake) {
    this.redis = endpoint.commands();
    this.pipelined = endpoint.asyncCommands();
    this.timeoutNanos = endpoint.timeout().toNanos();
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
                layout.exclusiveKeys(key),
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
    Long ok =
        run(
            extendScript(key),
            ScriptOutputType.INTEGER,
            extendKeys(key),
            extendArgs(key, owner, leaseMillis));
    return ok != null && ok == 1;
  }

  private static LuaScript extendScript(LockKey key) {
    return key.mode() == LockMode.READ ? LockScripts.EXTEND_READ : LockScripts.EXTEND;
  }

  private String[] extendKeys(LockKey key) {
    return new String[] {
      key.mode() == LockMode.READ ? layout.readersKey(key) : layout.holdKey(key)
    };
  }

  private static String[] extendArgs(LockKey key, String owner, long leaseMillis) {
    return new String[] {
      key.mode() == LockMode.READ ? owner : KeyLayout.ownerField(owner), Long.toString(leaseMillis)
    };
  }

  /**
   * Sends every extension's script before reading the first reply, so the batch costs one round
   * trip instead of one each; the server runs them in order, each owner-checked on its own. Each
   * reply is awaited at most the command timeout; a reply of {@code NOSCRIPT} (the server lost its
   * script cache) is retried alone with {@code EVAL}.
   */
  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) {
    List<RedisFuture<Long>> replies = new ArrayList<>(extensions.size());
    for (LeaseExtension e : extensions) {
      String[] keys = extendKeys(e.key());
      String[] args = extendArgs(e.key(), e.owner(), LockOperations.millis(e.leaseTime()));
      replies.add(
          pipelined.evalsha(extendScript(e.key()).sha(), ScriptOutputType.INTEGER, keys, args));
    }
    boolean[] held = new boolean[replies.size()];
    for (int i = 0; i < held.length; i++) {
      LeaseExtension e = extensions.get(i);
      Long ok;
      try {
        ok = reply(replies.get(i));
      } catch (RedisNoScriptException noScript) {
        ok =
            run(
                extendScript(e.key()),
                ScriptOutputType.INTEGER,
                extendKeys(e.key()),
                extendArgs(e.key(), e.owner(), LockOperations.millis(e.leaseTime())));
      }
      held[i] = ok != null && ok == 1;
    }
    return held;
  }

  private Long reply(RedisFuture<Long> reply) {
    try {
      return reply.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new RedisException(cause);
    } catch (TimeoutException e) {
      reply.cancel(false);
      throw new RedisCommandTimeoutException(
          "Command timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisCommandInterruptedException(e);
    }
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
