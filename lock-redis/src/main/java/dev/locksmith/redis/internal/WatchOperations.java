package dev.locksmith.redis.internal;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.ReleaseOutcome;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The strategy for servers that forbid scripting: optimistic {@code WATCH}/{@code MULTI}/{@code
 * EXEC} transactions over the same {@link KeyLayout} and the same data as the scripts.
 *
 * <p>Tokens are drawn as the scripts draw them (see {@code LockScripts}): from the shared counter,
 * above the server's clock and above a legacy per-name counter. The counter is watched only from
 * the moment a hold is about to be created, so busy answers never conflict on it; fresh acquires of
 * different names under one prefix do, and one of them always commits.
 *
 * <p>Each operation watches the keys it decides on, reads them, and writes only inside {@code
 * MULTI}; if any watched key changed (or expired: Redis 6.0.9 and later abort on expiry) {@code
 * EXEC} is discarded and the operation starts again, so every write is owner-checked against the
 * state it was decided on. A transaction needs its own connection, so operations borrow one from a
 * small pool; a connection that saw an error is closed, never reused with a stale {@code WATCH}.
 */
public final class WatchOperations implements LockOperations {

  private static final int MAX_ATTEMPTS = 1000;
  private static final int MAX_IDLE = 8;

  private final Supplier<StatefulRedisConnection<String, String>> connect;
  private final KeyLayout layout;
  private final ConcurrentLinkedDeque<StatefulRedisConnection<String, String>> idle =
      new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  /** Runs transactions on connections from {@code connect}, over {@code layout}. */
  public WatchOperations(
      Supplier<StatefulRedisConnection<String, String>> connect, KeyLayout layout) {
    this.connect = connect;
    this.layout = layout;
  }

  /** The outcome of one attempt: an answer, or null to try again after a discarded EXEC. */
  private <T> T transact(Function<RedisCommands<String, String>, @Nullable T> attempt) {
    StatefulRedisConnection<String, String> c = idle.pollFirst();
    if (c == null) {
      c = connect.get();
    }
    boolean healthy = false;
    try {
      for (int i = 0; i < MAX_ATTEMPTS; i++) {
        T answer = attempt.apply(c.sync());
        if (answer != null) {
          healthy = true;
          return answer;
        }
      }
      healthy = true;
      throw new RedisException(
          "gave up after " + MAX_ATTEMPTS + " transactions discarded by concurrent changes");
    } finally {
      if (healthy && !closed && idle.size() < MAX_IDLE) {
        idle.addFirst(c);
      } else {
        c.closeAsync();
      }
    }
  }

  private static boolean committed(TransactionResult r) {
    return r != null && !r.wasDiscarded();
  }

  private static long now(RedisCommands<String, String> r) {
    List<String> t = r.time();
    return Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
  }

  private static long pttl(RedisCommands<String, String> r, String key) {
    Long v = r.pttl(key);
    return v == null ? -2 : v;
  }

  /** A PEXPIRE that never shortens the key's current time to live. */
  private static long stretched(RedisCommands<String, String> r, String key, long leaseMillis) {
    return Math.max(pttl(r, key), leaseMillis);
  }

  private static @Nullable Long liveReaderHolds(
      Map<String, String> readers, String owner, long now) {
    String expiry = readers.get("e:" + owner);
    String holds = readers.get("h:" + owner);
    if (expiry == null || holds == null || Long.parseLong(expiry) <= now) {
      return null;
    }
    return Long.parseLong(holds);
  }

  private static int liveReaders(Map<String, String> readers, long now) {
    int n = 0;
    for (Map.Entry<String, String> e : readers.entrySet()) {
      if (e.getKey().startsWith("e:") && Long.parseLong(e.getValue()) > now) {
        n++;
      }
    }
    return n;
  }

  private static boolean otherWaitingWriter(Map<String, String> waiting, String owner, long now) {
    for (Map.Entry<String, String> e : waiting.entrySet()) {
      if (!e.getKey().equals(owner) && Long.parseLong(e.getValue()) > now) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Acquisition acquire(LockKey key, String owner, long leaseMillis) {
    String field = KeyLayout.ownerField(owner);
    String tokens = layout.tokensKey(key);
    String legacy = layout.legacyFenceKey(key);
    if (key.mode() == LockMode.EXCLUSIVE) {
      String hold = layout.holdKey(key);
      return transact(
          r -> {
            r.watch(hold);
            Map<String, String> h = r.hgetall(hold);
            if (h.containsKey(field)) {
              return reenter(r, hold, field, h, leaseMillis);
            }
            if (!h.isEmpty()) {
              long ttl = pttl(r, hold);
              r.unwatch();
              return Replies.busy(ttl);
            }
            return create(r, hold, tokens, legacy, field, leaseMillis, null);
          });
    }
    String write = layout.holdKey(key);
    String read = layout.readersKey(key);
    String wait = layout.waitingKey(key);
    return transact(
        r -> {
          r.watch(write, read, wait);
          long now = now(r);
          Map<String, String> w = r.hgetall(write);
          Map<String, String> readers = r.hgetall(read);
          if (key.mode() == LockMode.WRITE) {
            if (w.containsKey(field)) {
              return reenter(r, write, field, w, leaseMillis);
            }
            long busy = -3;
            if (!w.isEmpty()) {
              busy = pttl(r, write);
            } else if (liveReaders(readers, now) > 0) {
              busy = pttl(r, read);
            }
            if (busy != -3) {
              long waitTtl = stretched(r, wait, leaseMillis);
              r.multi();
              r.hset(wait, owner, Long.toString(now + leaseMillis));
              r.pexpire(wait, waitTtl);
              return committed(r.exec()) ? Replies.busy(busy) : null;
            }
            return create(r, write, tokens, legacy, field, leaseMillis, () -> r.hdel(wait, owner));
          }
          // READ
          if (!w.isEmpty() && !w.containsKey(field)) {
            long ttl = pttl(r, write);
            r.unwatch();
            return Replies.busy(ttl);
          }
          Long mine = liveReaderHolds(readers, owner, now);
          if (mine == null && otherWaitingWriter(r.hgetall(wait), owner, now)) {
            r.unwatch();
            return Replies.busy(-1);
          }
          @Nullable TokenDraw draw = null;
          long token;
          if (mine == null) {
            draw = TokenDraw.forReader(r, tokens, legacy);
            token = draw.token;
          } else {
            token = Long.parseLong(readers.get("t:" + owner));
          }
          long holds = mine == null ? 1 : mine + 1;
          long readTtl = stretched(r, read, leaseMillis);
          r.multi();
          r.hset(
              read,
              Map.of(
                  "h:" + owner,
                  Long.toString(holds),
                  "e:" + owner,
                  Long.toString(now + leaseMillis),
                  "t:" + owner,
                  Long.toString(token)));
          r.pexpire(read, readTtl);
          if (draw != null) {
            draw.storeInTransaction(r);
          }
          return committed(r.exec()) ? Acquisition.acquired(token, (int) holds) : null;
        });
  }

  /**
   * A token drawn as the scripts draw it ({@code LockScripts}): read under {@code WATCH}, so that
   * the values written back inside {@code MULTI} are exactly the ones decided on, or the
   * transaction is discarded and the draw starts again.
   */
  private static final class TokenDraw {
    final long token;
    private final String tokens;
    private final String legacy;
    private final boolean storeCounter;
    private final boolean storeLegacy;

    /**
     * {@code token}, drawn from the shared counter's value {@code counter} and the legacy counter's
     * {@code old} (null if there is none): each is written back only where the token is above it.
     */
    private TokenDraw(
        long token, String tokens, String legacy, long counter, @Nullable String old) {
      this.token = token;
      this.tokens = tokens;
      this.legacy = legacy;
      this.storeCounter = token > counter;
      this.storeLegacy = old != null && token > Long.parseLong(old);
    }

    /** max(counter + 1, TIME µs, legacy + 1), stored in the counter and the legacy counter. */
    static TokenDraw forHolder(RedisCommands<String, String> r, String tokens, String legacy) {
      r.watch(tokens, legacy);
      List<KeyValue<String, String>> values = r.mget(tokens, legacy);
      long counter = number(values.get(0).getValueOrElse(null));
      @Nullable String old = values.get(1).getValueOrElse(null);
      long token = Math.max(counter + 1, nowMicros(r));
      if (old != null) {
        token = Math.max(token, Long.parseLong(old) + 1);
      }
      return new TokenDraw(token, tokens, legacy, counter, old);
    }

    /** max(counter, TIME µs, legacy) without counting up, stored back where higher. */
    static TokenDraw forReader(RedisCommands<String, String> r, String tokens, String legacy) {
      r.watch(tokens, legacy);
      List<KeyValue<String, String>> values = r.mget(tokens, legacy);
      long counter = number(values.get(0).getValueOrElse(null));
      @Nullable String old = values.get(1).getValueOrElse(null);
      long token = Math.max(counter, nowMicros(r));
      if (old != null) {
        token = Math.max(token, Long.parseLong(old));
      }
      return new TokenDraw(token, tokens, legacy, counter, old);
    }

    void storeInTransaction(RedisCommands<String, String> r) {
      if (storeCounter) {
        r.set(tokens, Long.toString(token));
      }
      if (storeLegacy) {
        r.set(legacy, Long.toString(token));
      }
    }

    private static long number(@Nullable String value) {
      return value == null ? 0 : Long.parseLong(value);
    }

    private static long nowMicros(RedisCommands<String, String> r) {
      List<String> t = r.time();
      return Long.parseLong(t.get(0)) * 1_000_000 + Long.parseLong(t.get(1));
    }
  }

  private static @Nullable Acquisition reenter(
      RedisCommands<String, String> r,
      String hold,
      String field,
      Map<String, String> h,
      long leaseMillis) {
    long token = Long.parseLong(h.get(KeyLayout.TOKEN_FIELD));
    long holds = Long.parseLong(h.get(field)) + 1;
    r.multi();
    r.hset(hold, field, Long.toString(holds));
    r.pexpire(hold, leaseMillis);
    return committed(r.exec()) ? Acquisition.acquired(token, (int) holds) : null;
  }

  private static @Nullable Acquisition create(
      RedisCommands<String, String> r,
      String hold,
      String tokens,
      String legacy,
      String field,
      long leaseMillis,
      @Nullable Runnable alsoInTransaction) {
    TokenDraw draw = TokenDraw.forHolder(r, tokens, legacy);
    r.multi();
    draw.storeInTransaction(r);
    r.hset(hold, Map.of(field, "1", KeyLayout.TOKEN_FIELD, Long.toString(draw.token)));
    r.pexpire(hold, leaseMillis);
    if (alsoInTransaction != null) {
      alsoInTransaction.run();
    }
    return committed(r.exec()) ? Acquisition.acquired(draw.token, 1) : null;
  }

  @Override
  public boolean extend(LockKey key, String owner, long leaseMillis) {
    if (key.mode() == LockMode.READ) {
      String read = layout.readersKey(key);
      return transact(
          r -> {
            r.watch(read);
            long now = now(r);
            if (liveReaderHolds(r.hgetall(read), owner, now) == null) {
              r.unwatch();
              return false;
            }
            long ttl = stretched(r, read, leaseMillis);
            r.multi();
            r.hset(read, "e:" + owner, Long.toString(now + leaseMillis));
            r.pexpire(read, ttl);
            return committed(r.exec()) ? Boolean.TRUE : null;
          });
    }
    String hold = layout.holdKey(key);
    String field = KeyLayout.ownerField(owner);
    return transact(
        r -> {
          r.watch(hold);
          if (!r.hexists(hold, field)) {
            r.unwatch();
            return false;
          }
          r.multi();
          r.pexpire(hold, leaseMillis);
          return committed(r.exec()) ? Boolean.TRUE : null;
        });
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    String channel = layout.channel(key);
    if (key.mode() == LockMode.READ) {
      String read = layout.readersKey(key);
      return transact(
          r -> {
            r.watch(read);
            long now = now(r);
            Long mine = liveReaderHolds(r.hgetall(read), owner, now);
            if (mine == null) {
              r.unwatch();
              return ReleaseOutcome.NOT_HELD;
            }
            r.multi();
            if (mine > 1) {
              r.hset(read, "h:" + owner, Long.toString(mine - 1));
              return committed(r.exec()) ? ReleaseOutcome.HOLD_DECREMENTED : null;
            }
            r.hdel(read, "h:" + owner, "e:" + owner, "t:" + owner);
            r.publish(channel, "released");
            return committed(r.exec()) ? ReleaseOutcome.RELEASED : null;
          });
    }
    String hold = layout.holdKey(key);
    String field = KeyLayout.ownerField(owner);
    return transact(
        r -> {
          r.watch(hold);
          String holds = r.hget(hold, field);
          if (holds == null) {
            r.unwatch();
            return ReleaseOutcome.NOT_HELD;
          }
          long n = Long.parseLong(holds);
          r.multi();
          if (n > 1) {
            r.hset(hold, field, Long.toString(n - 1));
            return committed(r.exec()) ? ReleaseOutcome.HOLD_DECREMENTED : null;
          }
          r.del(hold);
          r.publish(channel, "released");
          return committed(r.exec()) ? ReleaseOutcome.RELEASED : null;
        });
  }

  @Override
  public LockState read(LockKey key) {
    return transact(
        r -> {
          String hold = layout.holdKey(key);
          Map<String, String> h = r.hgetall(hold);
          for (Map.Entry<String, String> e : h.entrySet()) {
            if (e.getKey().startsWith("o:")) {
              long ttl = pttl(r, hold);
              return Replies.state(List.of(e.getKey(), Long.parseLong(e.getValue()), ttl, 0L));
            }
          }
          if (key.mode() == LockMode.EXCLUSIVE) {
            return LockState.FREE;
          }
          int readers = liveReaders(r.hgetall(layout.readersKey(key)), now(r));
          return readers > 0 ? LockState.heldByReaders(readers) : LockState.FREE;
        });
  }

  @Override
  public void withdraw(LockKey key, String owner) {
    if (key.mode() != LockMode.WRITE) {
      return;
    }
    transact(
        r -> {
          if (r.hdel(layout.waitingKey(key), owner) == 1) {
            r.publish(layout.channel(key), "withdrawn");
          }
          return Boolean.TRUE;
        });
  }

  @Override
  public void close() {
    closed = true;
    StatefulRedisConnection<String, String> c;
    while ((c = idle.pollFirst()) != null) {
      c.closeAsync();
    }
  }
}
