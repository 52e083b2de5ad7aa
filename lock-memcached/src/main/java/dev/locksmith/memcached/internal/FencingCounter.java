package dev.locksmith.memcached.internal;

import dev.locksmith.memcached.internal.ItemClient.PendingIncr;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fencing counters: one memcached counter item per server, shared by every lock name whose item
 * lives on that server, drawn with {@code incr}. A released lock so leaves nothing behind: the
 * store keeps one counter per server and prefix however many names it has seen.
 *
 * <p><b>Which counter.</b> A name draws from the counter on its lock item's own server, {@code
 * <prefix>fence#<n>} with the smallest n that the client's locator places on that server. So the
 * {@code incr} can follow the {@code add} of the lock item on one connection, and memcached
 * executes it after the add; the next holder's add succeeds only after this hold ended, so its incr
 * executes after this one on the same counter, and tokens rise across the holders of a name. Every
 * client with the same server list (and hashing) finds the same counter for a name. With one server
 * every name uses {@code <prefix>fence#0}.
 *
 * <p><b>A lost counter</b> (memcached restarted, the counter evicted or flushed) is created again
 * at the wall clock in nanoseconds. Every counter is created that way and then drawn from at far
 * fewer than one draw per nanosecond, so no counter ever stands above the clock of the moment: a
 * counter created again restarts above every token drawn before, from any counter, as long as the
 * clocks of the clients that create counters do not run behind each other by more than the lost
 * counter lived. Nanoseconds leave room for a thousand draws, busy attempts included, per
 * microsecond the counter lived.
 *
 * <p><b>Creating a counter races</b>: memcached's create-if-missing {@code incr} looks the key up
 * and adds it in two steps, so of two clients that find it missing at once, one is answered {@code
 * NOT_STORED}. The counter exists by then, so the draw simply sends its {@code incr} again (after
 * the add, so still ordered behind it).
 *
 * <p><b>Counters of earlier versions.</b> Before shared counters, every name had its own counter,
 * {@code <prefix>fence:<name>}, created at the clock when missing. While clients of both versions
 * run, a name's tokens must keep rising whichever version holds it next, so a hold also reads its
 * name's old counter (an {@code incr} that does not create it, sent with the others): when there is
 * one, the token is drawn above its value (the shared counter is raised past it), and the old
 * counter is deleted before the acquire returns. An older client holding the name next then finds
 * it missing and creates it at its clock, above this token; a newer one draws from the raised
 * shared counter. Names that no client of this version locks again keep their old counter until
 * memcached evicts it.
 */
public final class FencingCounter {

  private static final Logger log = LoggerFactory.getLogger(FencingCounter.class);

  /** Bound on draws lost to counter-creation races (each needs a counter lost again meanwhile). */
  private static final int MAX_CREATION_RACES = 16;

  /** How many counter keys to try, per server, when looking for one that the server holds. */
  private static final int SEARCH_PER_SERVER = 4096;

  /**
   * How a draw's incr is kept behind its add: sent right after it on the same connection, or only
   * once the add was answered (when the client might send the two to different servers).
   */
  private enum Ordering {
    SAME_CONNECTION,
    AFTER_ANSWER
  }

  private final ItemClient items;
  private final StoreKeys keys;
  private final Ordering ordering;
  private final Clock wallClock = Clock.systemUTC();
  private final Map<Object, String> counterOfServer = new ConcurrentHashMap<>();

  private FencingCounter(ItemClient items, StoreKeys keys, Ordering ordering) {
    this.items = items;
    this.keys = keys;
    this.ordering = ordering;
  }

  /**
   * Counters under {@code keys} on a client in {@code FailureMode.Cancel}, which sends every
   * operation to its key's server or fails it: an incr can follow its add on one connection.
   */
  public static FencingCounter onCancelModeClient(ItemClient items, StoreKeys keys) {
    return new FencingCounter(items, keys, Ordering.SAME_CONNECTION);
  }

  /**
   * Counters under {@code keys} on a client of any failure mode: with several servers it might
   * redistribute an add and its incr to different servers, which would lose their order, so an incr
   * follows its add on one connection only when the client has one server.
   */
  public static FencingCounter onAnyClient(ItemClient items, StoreKeys keys) {
    return new FencingCounter(
        items, keys, items.singleServer() ? Ordering.SAME_CONNECTION : Ordering.AFTER_ANSWER);
  }

  /**
   * The key of the counter that {@code name} draws from: the first of {@code <prefix>fence#0},
   * {@code #1} … that lives on the server of the name's lock item. A locator that places none of
   * the first few thousand there (it would have to give that server almost no keys) gets {@code
   * fence#0} wherever it lives: tokens still rise, since an incr that cannot follow the add on its
   * connection is sent only after the add was answered.
   */
  public String counterKey(String name) {
    if (items.singleServer()) {
      return keys.counter(0);
    }
    String lockKey = keys.lock(name);
    return counterOfServer.computeIfAbsent(items.serverOf(lockKey), server -> search(lockKey));
  }

  private String search(String lockKey) {
    int limit = SEARCH_PER_SERVER * Math.max(1, items.servers());
    for (int i = 0; i < limit; i++) {
      String candidate = keys.counter(i);
      if (items.sameServer(lockKey, candidate)) {
        return candidate;
      }
    }
    return keys.counter(0);
  }

  /**
   * Starts drawing a token for {@code name} right after the {@code add} of its lock item was sent:
   * sends the counter's {@code incr} and the read of the name's old counter now when they go over
   * the add's connection (so memcached executes them after it), else nothing yet. Nothing is waited
   * for; a caller whose add did not create the item drops the draw (the token it drew is burnt:
   * tokens have gaps).
   */
  public Draw drawBehindAdd(String name) {
    String lockKey = keys.lock(name);
    String counterKey = counterKey(name);
    String legacyKey = keys.legacyFence(name);
    PendingIncr shared =
        ordering == Ordering.SAME_CONNECTION && items.sameServer(lockKey, counterKey)
            ? incr(counterKey, 1, 0)
            : null;
    PendingIncr legacy =
        ordering == Ordering.SAME_CONNECTION && items.sameServer(lockKey, legacyKey)
            ? items.incrIfPresent(legacyKey)
            : null;
    return new Draw(counterKey, legacyKey, shared, legacy);
  }

  private PendingIncr incr(String counterKey, long by, long atLeast) {
    Instant now = wallClock.instant();
    long clock =
        Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
    return items.incr(counterKey, by, Math.max(clock, atLeast));
  }

  /** A token being drawn for one acquire, begun by {@link #drawBehindAdd}. */
  public final class Draw {

    private final String counterKey;
    private final String legacyKey;
    private @Nullable PendingIncr shared;
    private @Nullable PendingIncr legacy;

    private Draw(
        String counterKey,
        String legacyKey,
        @Nullable PendingIncr shared,
        @Nullable PendingIncr legacy) {
      this.counterKey = counterKey;
      this.legacyKey = legacyKey;
      this.shared = shared;
      this.legacy = legacy;
    }

    /**
     * The token of the hold whose {@code add} was answered with success: waits for what was sent
     * behind the add, sends the rest now (it executes after the add, which was answered), takes the
     * name's old counter into account and deletes it.
     */
    public long token() throws Exception {
      PendingIncr first = shared != null ? shared : incr(counterKey, 1, 0);
      PendingIncr old = legacy != null ? legacy : items.incrIfPresent(legacyKey);
      long token = settle(first, 1, 0);
      Long oldValue = old.valueIfPresent();
      if (oldValue == null) {
        return token;
      }
      // A client of an earlier version drew this name's tokens from its own counter. Draw ours
      // above it, and above every token the shared counter gives from now on: raise the shared
      // counter past it (incr by the difference: atomic, whoever drew in between).
      if (oldValue >= token) {
        long by = oldValue - token + 1;
        token = settle(incr(counterKey, by, oldValue + 1), by, oldValue + 1);
      }
      // Then drop the old counter, before the hold is handed out: an earlier version's client that
      // holds the name next creates it again at its clock, which is above this token. The delete
      // is not conditional: only busy attempts of such clients can have drawn from it meanwhile.
      items.deleteKey(legacyKey);
      return token;
    }

    /**
     * The value {@code pending} drew; when it lost a race to create the counter (answered {@code
     * NOT_STORED}: someone else created it a moment before), the same {@code incr} again, which
     * finds the counter.
     */
    private long settle(PendingIncr pending, long by, long atLeast) throws Exception {
      PendingIncr current = pending;
      for (int race = 0; ; race++) {
        Long value = current.valueUnlessRaced();
        if (value != null) {
          return value;
        }
        if (race >= MAX_CREATION_RACES) {
          // Only a counter that keeps vanishing right after each creation gets here.
          return current.value();
        }
        log.debug(
            "Counter {} was created by another client at the same moment; drawing again",
            counterKey);
        current = incr(counterKey, by, atLeast);
      }
    }
  }
}
