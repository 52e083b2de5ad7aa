package dev.locksmith.redis.internal;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release wake-ups for every waiter of one store, over ONE pub/sub connection however many locks
 * are waited on: a channel is subscribed while at least one waiter listens to it, and unsubscribed
 * when the last one leaves. The connection opens on first use and Lettuce resubscribes after a
 * reconnect; a lost message only delays a waiter, who also polls.
 *
 * <p>When the connection drops (the server went away, the network path broke), every waiter is
 * woken at once: while it sleeps on this push nothing else would tell it, so it would sleep out its
 * backoff or its whole wait. Its next attempt then meets the broken link and fails with the store's
 * error, or succeeds if the link is back. Waiters are woken again when the connection comes back,
 * since releases published while it was down were lost.
 */
public final class ReleaseChannel implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ReleaseChannel.class);

  private final Supplier<StatefulRedisPubSubConnection<String, String>> connect;
  private final Duration timeout;
  private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
  private @Nullable StatefulRedisPubSubConnection<String, String> connection;
  private volatile boolean closed;

  /** Opens connections with {@code connect}; subscribing waits up to {@code timeout}. */
  public ReleaseChannel(
      Supplier<StatefulRedisPubSubConnection<String, String>> connect, Duration timeout) {
    this.connect = connect;
    this.timeout = timeout;
  }

  private synchronized StatefulRedisPubSubConnection<String, String> connection() {
    if (closed) {
      throw new IllegalStateException("the release channel is closed");
    }
    if (connection == null) {
      StatefulRedisPubSubConnection<String, String> c = connect.get();
      c.addListener(
          new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
              wakeAll("the pub/sub connection dropped");
            }

            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress at) {
              wakeAll("the pub/sub connection is back");
            }
          });
      c.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              Set<Runnable> set = listeners.get(channel);
              if (set != null) {
                set.forEach(Runnable::run);
              }
            }
          });
      connection = c;
    }
    return connection;
  }

  /** Runs every listener once, as if each channel had seen a release. */
  private void wakeAll(String why) {
    if (closed) {
      return;
    }
    log.debug("Waking every waiter: {}", why);
    for (Set<Runnable> set : listeners.values()) {
      set.forEach(Runnable::run);
    }
  }

  /**
   * Runs {@code onMessage} on every message on {@code channel}, and when the connection drops or
   * comes back, until the returned handle is closed. Returns once the server confirmed the
   * subscription.
   *
   * @throws RuntimeException the driver's failure if the subscription could not be made
   */
  public AutoCloseable listen(String channel, Runnable onMessage) {
    synchronized (this) {
      StatefulRedisPubSubConnection<String, String> c = connection();
      Set<Runnable> set = listeners.computeIfAbsent(channel, k -> new CopyOnWriteArraySet<>());
      boolean first = set.isEmpty();
      set.add(onMessage);
      if (first) {
        try {
          c.async().subscribe(channel).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
          set.remove(onMessage);
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          throw new IllegalStateException("subscribing to " + channel + " failed: " + e, e);
        }
      }
    }
    return () -> stop(channel, onMessage);
  }

  private synchronized void stop(String channel, Runnable onMessage) {
    Set<Runnable> set = listeners.get(channel);
    if (set == null || !set.remove(onMessage) || !set.isEmpty()) {
      return;
    }
    listeners.remove(channel);
    if (connection != null && !closed) {
      // Fire and forget: commands on one connection run in order, so a later subscribe wins.
      connection.async().unsubscribe(channel);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    listeners.clear();
    if (connection != null) {
      try {
        connection.close();
      } catch (RuntimeException e) {
        log.debug("Closing the pub/sub connection failed", e);
      }
    }
  }
}
