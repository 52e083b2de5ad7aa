package dev.locksmith.zookeeper.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreListener;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lock store's view of its ZooKeeper session: which session its holds are bound to, whether the
 * connection is up, and every change of either reported to the engine's {@link StoreListener}.
 *
 * <p>Curator's connection states reach the listener as: {@code SUSPENDED} → {@link
 * StoreListener#suspended()}, {@code RECONNECTED} within the same session → {@link
 * StoreListener#resumed()}, {@code LOST} or a reconnect with a new session → {@link
 * StoreListener#sessionLost}. Every report, also a lost hold's, runs on one thread of the store's
 * own, in order, never on ZooKeeper's event thread (which the engine's reaction might block).
 *
 * <p>The watch ends when the store closes: from then on nothing is reported (the engine closed the
 * store, so the end of its holds is no news) and store operations fail with {@link
 * LockStoreException}.
 */
public final class SessionWatch implements SessionEvents {

  private static final Logger log = LoggerFactory.getLogger(SessionWatch.class);

  private static final StoreListener NO_LISTENER =
      new StoreListener() {
        @Override
        public void holdLost(LockKey key, String owner, long token, String reason) {}

        @Override
        public void suspended() {}

        @Override
        public void resumed() {}

        @Override
        public void sessionLost(String reason) {}
      };

  private final CuratorFramework curator;
  private final ScheduledThreadPoolExecutor events;
  private final ConnectionStateListener stateListener = this::stateChanged;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile StoreListener listener = NO_LISTENER;
  private volatile long sessionId;
  private volatile Runnable beforeResumed = () -> {};

  /** A watch of {@code curator}'s session; it reports nothing until {@link #start}. */
  public SessionWatch(CuratorFramework curator) {
    this.curator = curator;
    this.events =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "locksmith-zookeeper-events");
              t.setDaemon(true);
              return t;
            });
    // A closed store runs nothing more, not even what was due later.
    events.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.sessionId = id();
  }

  /**
   * Starts following the connection states; {@code beforeResumed} runs on every reconnect within
   * the session, before the engine hears of it (to set again the watches the outage cut short).
   */
  public void start(Runnable beforeResumed) {
    this.beforeResumed = beforeResumed;
    curator.getConnectionStateListenable().addListener(stateListener, events);
  }

  @Override
  public void listen(StoreListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
  }

  /** Tells the engine's listener something, on the event thread, unless the store is closed. */
  public void report(Consumer<StoreListener> event) {
    run(
        () -> {
          if (!closed.get()) {
            event.accept(listener);
          }
        });
  }

  /** Runs {@code task} on the event thread, unless the store is closed. */
  public void run(Runnable task) {
    try {
      events.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("Store closed; dropping an event", e);
    }
  }

  /** Runs {@code task} on the event thread after {@code delay}, unless the store is closed. */
  public void runAfter(Duration delay, Runnable task) {
    try {
      events.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("Store closed; dropping a delayed task", e);
    }
  }

  /** The id of the current session, or 0 while there is none. */
  public long id() {
    try {
      return curator.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      return 0; // Curator is (re)connecting: no session to compare with yet.
    }
  }

  /** Whether the client is connected right now. */
  public boolean isConnected() {
    return curator.getZookeeperClient().isConnected();
  }

  /**
   * Waits up to the Curator client's connection timeout for a connection.
   *
   * @throws ConnectException if none came, naming the servers and the wait
   */
  public void awaitConnected() throws InterruptedException, ConnectException {
    if (isConnected()) {
      return;
    }
    int timeout = curator.getZookeeperClient().getConnectionTimeoutMs();
    if (!curator.blockUntilConnected(timeout, TimeUnit.MILLISECONDS)) {
      throw new ConnectException(
          "not connected to ZooKeeper at "
              + curator.getZookeeperClient().getCurrentConnectionString()
              + " (waited "
              + timeout
              + " ms for the connection)");
    }
  }

  /** Whether the store is closed. */
  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Fails if the store is closed.
   *
   * @throws LockStoreException if it is
   */
  public void checkOpen() {
    if (closed.get()) {
      throw new LockStoreException("this zookeeper lock store is closed");
    }
  }

  /** Stops the watch; returns false if it was stopped already. */
  public boolean close() {
    if (!closed.compareAndSet(false, true)) {
      return false;
    }
    curator.getConnectionStateListenable().removeListener(stateListener);
    events.shutdown();
    return true;
  }

  private void stateChanged(CuratorFramework client, ConnectionState state) {
    if (closed.get()) {
      return;
    }
    switch (state) {
      case SUSPENDED:
        log.warn("ZooKeeper connection suspended: lock holds are not safe until it comes back");
        listener.suspended();
        break;
      case LOST:
        sessionEnded("the ZooKeeper session was lost (expired or unreachable for its timeout)");
        break;
      case CONNECTED:
      case RECONNECTED:
        long now = id();
        long before = sessionId;
        sessionId = now;
        if (before != 0 && now != before) {
          sessionEnded("the ZooKeeper session expired; the client reconnected with a new one");
        } else if (state == ConnectionState.RECONNECTED) {
          beforeResumed.run();
          listener.resumed();
        }
        break;
      default:
        break;
    }
  }

  private void sessionEnded(String reason) {
    // Holds of the old session are stale by now: Holds compares their session with the current.
    log.warn("Lock holds on zookeeper ended: {}", reason);
    listener.sessionLost(reason);
  }
}
