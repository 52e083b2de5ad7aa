package dev.locksmith.memcached.internal;

import dev.locksmith.memcached.internal.ItemClient.PendingIncr;
import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The fencing counters: one memcached counter item per lock name, drawn with {@code incr}.
 *
 * <p>A missing counter (new name, memcached restarted, counter evicted or flushed) is created at
 * the wall clock in nanoseconds, so a lost counter restarts above every token drawn before as long
 * as the clocks of the clients that create counters do not run behind each other by more than the
 * counter lived. Nanoseconds leave room for a thousand draws, busy attempts included, per
 * microsecond the counter lived.
 */
public final class FencingCounter {

  private final ItemClient items;
  private final StoreKeys keys;
  private final boolean pipelining;
  private final Clock wallClock = Clock.systemUTC();

  private FencingCounter(ItemClient items, StoreKeys keys, boolean pipelining) {
    this.items = items;
    this.keys = keys;
    this.pipelining = pipelining;
  }

  /**
   * Counters under {@code keys} on a client in {@code FailureMode.Cancel}, which sends every
   * operation to its key's server or fails it: an incr can follow its add on one connection.
   */
  public static FencingCounter onCancelModeClient(ItemClient items, StoreKeys keys) {
    return new FencingCounter(items, keys, true);
  }

  /**
   * Counters under {@code keys} on a client of any failure mode: with several servers it might
   * redistribute an add and its incr to different servers, which would lose their order, so an incr
   * follows its add on one connection only when the client has one server.
   */
  public static FencingCounter onAnyClient(ItemClient items, StoreKeys keys) {
    return new FencingCounter(items, keys, items.singleServer());
  }

  /** Sends the {@code incr} of the counter of {@code name}; does not wait. */
  public PendingIncr draw(String name) {
    Instant now = wallClock.instant();
    long floor =
        Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
    return items.incr(keys.fence(name), floor);
  }

  /**
   * Sends the {@code incr} of the counter of {@code name} right behind the {@code add} of its lock
   * item just sent, if both go over the same connection; null if they do not (then only an incr
   * sent after the add was answered is known to execute after it). memcached executes one
   * connection's requests in order, and spymemcached keeps one connection per server and sends a
   * server's operations in the order they were queued, also when it resends them after a reconnect.
   */
  public @Nullable PendingIncr drawBehindAdd(String name) {
    return pipelining && items.sameServer(keys.lock(name), keys.fence(name)) ? draw(name) : null;
  }
}
