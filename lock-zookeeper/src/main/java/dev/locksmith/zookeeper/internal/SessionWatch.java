package dev.locksmith.zookeeper.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreListener;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
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
 * own, in order, never on ZooKeeper's event thread (which the engine's reaction might block),
 * unless a store call must make sure of it first (see below).
 *
 * <p><b>A session's loss is reported once, and before any hold of the next session.</b> The engine
 * ends every lease it has when told that the session was lost, so a report that came after a hold
 * of the new session was handed out would end that hold too (and leave its node behind for the
 * session's life). The watch therefore keeps the session the engine counts on: the report of its
 * loss ends it, whoever makes that report first (the event thread on {@code LOST} or on a reconnect
 * with a new session, or a store call about to grant a hold of a newer session, which cannot wait
 * for Curator's events), and a new session is adopted only once that report has reached the engine
 * ({@link #admit}). Waiters in a queue are woken when their session's loss is reported ({@link
 * #onSessionEnd}), so that they find out at once instead of at the end of their wait.
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
  private final Set<Runnable> sessionEndWaiters = ConcurrentHashMap.newKeySet();
  private volatile StoreListener listener = NO_LISTENER;
  private volatile Runnable beforeResumed = () -> {};

  /**
   * The session whose holds the engine counts on: 0 once the report of its loss is made, until the
   * next session is adopted. Changed under this watch's monitor.
   */
  private volatile long engineSession;

  /** The last session whose loss was reported, which no store call may count on again. */
  private volatile long endedSession;

  /** The report of the last session's loss; guarded by this watch's monitor. */
  private @Nullable Report sessionReport;

  /**
   * When the request of the server's latest answer within the session was sent ({@link
   * System#nanoTime()}): the server has heard from this client since then at least, so it keeps the
   * session until that time plus the session timeout. See {@link #trustedAt}.
   */
  private final AtomicLong heardAtNanos = new AtomicLong(System.nanoTime());

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
    this.engineSession = id();
  }

  /**
   * Starts following the connection states; {@code beforeResumed} runs on every reconnect within
   * the session, before the engine hears of it (to set again the watches the outage cut short).
   */
  public void start(Runnable beforeResumed) {
    this.beforeResumed = beforeResumed;
    curator.getConnectionStateListenable().addListener(stateListener, events);
    // A third of the session, as ZooKeeper's own pings: the latest answer is then at most that
    // old (plus a round trip) while all is well, far inside the session timeout.
    long pulse = Math.max(sessionTimeoutNanos() / 3, TimeUnit.MILLISECONDS.toNanos(50));
    events.scheduleWithFixedDelay(this::pulse, pulse, pulse, TimeUnit.NANOSECONDS);
  }

  /**
   * Whether the session can be trusted at {@code nanoTime}: the server answered a request sent less
   * than the session timeout before. After this process was stopped past its session (a GC pause,
   * {@code SIGSTOP}) it is false at once, before ZooKeeper's client has read the closed socket and
   * Curator has reported the loss.
   */
  @Override
  public boolean trustedAt(long nanoTime) {
    return nanoTime - heardAtNanos.get() < sessionTimeoutNanos();
  }

  /** The session timeout the server granted, or the one asked for while there is no session. */
  private long sessionTimeoutNanos() {
    int granted;
    try {
      granted = curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
    } catch (Exception e) {
      granted = 0; // Curator is (re)connecting: fall back to the timeout asked for.
    }
    int millis =
        granted > 0 ? granted : curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
    return TimeUnit.MILLISECONDS.toNanos(millis > 0 ? millis : reportTimeout().toMillis());
  }

  /** Asks the server a question whose answer proves the session alive when it was asked. */
  private void pulse() {
    long sent = System.nanoTime();
    long session = id();
    if (session == 0 || !isConnected()) {
      return;
    }
    try {
      curator
          .getZookeeperClient()
          .getZooKeeper()
          .exists(
              "/",
              false,
              (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue() && id() == session) {
                  heard(sent);
                }
              },
              null);
    } catch (Exception e) {
      log.debug("Session pulse not sent", e);
    }
  }

  /** {@link #pulse} on this thread, waiting for the answer (a round trip). */
  private void pulseAndWait() {
    long sent = System.nanoTime();
    try {
      curator.getZookeeperClient().getZooKeeper().exists("/", false);
      heard(sent);
    } catch (Exception e) {
      log.debug("Session pulse after a reconnect failed; the next one will tell", e);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void heard(long sentNanos) {
    // Answers may come in any order: keep the latest send time.
    heardAtNanos.accumulateAndGet(sentNanos, (was, sent) -> sent - was > 0 ? sent : was);
  }

  @Override
  public void listen(StoreListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
  }

  /** Tells the engine's listener something on this thread, unless the store is closed. */
  void tell(Consumer<StoreListener> event) {
    if (closed.get()) {
      return;
    }
    try {
      event.accept(listener);
    } catch (RuntimeException e) {
      log.warn("The lock engine's listener threw on a store event", e);
    }
  }

  /** A report of {@code event}, delivered by whoever needs it first (see {@link Report}). */
  Report newReport(Consumer<StoreListener> event) {
    return new Report(this, event);
  }

  /** Delivers {@code report} on the event thread, unless a store call delivers it first. */
  void queue(Report report) {
    run(report::deliver);
  }

  /**
   * How long a store call waits for a report that another thread is delivering: the Curator
   * client's connection timeout, the bound of every wait of a store call.
   */
  Duration reportTimeout() {
    return Duration.ofMillis(curator.getZookeeperClient().getConnectionTimeoutMs());
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

  /**
   * Whether {@code session} is over for this store: the client has another session (or none yet),
   * or its loss has been reported. A hold or a queue place of such a session is gone with it.
   */
  public boolean isOver(long session) {
    return session != id() || session == endedSession;
  }

  /**
   * Called, under the slot's monitor, before a hold of {@code session} is handed out. If the engine
   * still counts on an older session, its loss is reported first (the returned report, which the
   * caller settles before the hold reaches the engine); a report of it another thread is making is
   * returned too. Null if there is nothing to wait for.
   *
   * @throws LockStoreException if {@code session} is over itself: the node the hold would be is
   *     gone with it
   */
  @Nullable Report admit(long session) {
    if (engineSession == session && session != 0) {
      return null; // The common case, on every grant: one volatile read.
    }
    synchronized (this) {
      if (isOver(session)) {
        throw new LockStoreException(
            "the ZooKeeper session ended while the lock was being granted, and the lock node with"
                + " it; try again");
      }
      if (engineSession == session) {
        return null;
      }
      Report report =
          engineSession != 0
              ? endEngineSession(
                  "the ZooKeeper session expired; the client reconnected with a new one")
              : sessionReport;
      engineSession = session;
      return report;
    }
  }

  /**
   * Runs {@code waiter} (which must return at once) when the loss of the session is reported, until
   * {@link #noLongerWaiting}.
   */
  public void onSessionEnd(Runnable waiter) {
    sessionEndWaiters.add(waiter);
  }

  /** Stops running {@code waiter} at a session's end. */
  public void noLongerWaiting(Runnable waiter) {
    sessionEndWaiters.remove(waiter);
  }

  /**
   * Ends the session the engine counts on and makes the report of its loss (which also wakes the
   * waiters); null if its loss was reported already. Called under this watch's monitor.
   */
  private @Nullable Report endEngineSession(String reason) {
    long ended = engineSession;
    if (ended == 0) {
      return null;
    }
    endedSession = ended;
    engineSession = 0;
    Report report =
        newReport(
            engine -> {
              // Holds of the old session are stale by now: Holds compares their session with it.
              log.warn("Lock holds on zookeeper ended: {}", reason);
              try {
                engine.sessionLost(reason);
              } finally {
                sessionEndWaiters.forEach(Runnable::run);
              }
            });
    sessionReport = report;
    return report;
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
        tell(StoreListener::suspended);
        break;
      case LOST:
        Report lost;
        synchronized (this) {
          // A LOST that comes after a store call adopted the next session (its report made, the
          // client connected in it) is about the session before: that is told already.
          boolean laterSessionLive = isConnected() && id() == engineSession;
          lost =
              laterSessionLive
                  ? null
                  : endEngineSession(
                      "the ZooKeeper session was lost (expired or unreachable for its timeout)");
        }
        if (lost != null) {
          lost.deliver();
        }
        break;
      case CONNECTED:
      case RECONNECTED:
        long now = id();
        boolean same;
        Report ended = null;
        synchronized (this) {
          same = now != 0 && now == engineSession;
          if (!same && now != 0) {
            ended =
                endEngineSession(
                    "the ZooKeeper session expired; the client reconnected with a new one");
            engineSession = now;
          }
        }
        if (ended != null) {
          ended.deliver();
        } else if (same && state == ConnectionState.RECONNECTED) {
          beforeResumed.run();
          // The outage may have outlasted the last answer by a session timeout (the server kept
          // the session because the reconnect came in time): hear from it before holds count.
          pulseAndWait();
          tell(StoreListener::resumed);
        }
        break;
      default:
        break;
    }
  }
}
