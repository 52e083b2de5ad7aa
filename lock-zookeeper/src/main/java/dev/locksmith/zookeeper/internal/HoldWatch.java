package dev.locksmith.zookeeper.internal;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch on the node of one granted hold, which reports once that someone other than the holder
 * deleted the node (an operator, a client with an open ACL), so that the holder is told at once
 * instead of believing it still holds.
 *
 * <p>The watch is set in one of two ways. An attempt granted by the listing that follows its create
 * passes this watch to that {@code getChildren} ({@link #asChildWatcher()}): the queue's children
 * are then watched at no extra round trip, and only when the queue changes while the lock is held
 * (someone queued behind us, or our node went) does the watch move onto the node itself with an
 * {@code exists}. An attempt granted after waiting sets the {@code exists} watch directly ({@link
 * #arm()}). The uncontended acquire thus costs create + getChildren + delete, like Curator's mutex,
 * instead of a fourth request for the watch.
 *
 * <p>The watch is pending until the hold is recorded ({@link #start()}): a deletion seen before is
 * reported by {@code start}, so nothing is reported for a hold the store has not granted yet. The
 * holder calls {@link #end()} before it deletes the node itself (release, close), or when the
 * listing did not grant the lock: from then on nothing is reported. Exactly one of the two happens:
 * either the holder ends the watch, or the watch reports the deletion.
 *
 * <p>ZooKeeper watches fire once, so after any other event the watch is set again. Connection
 * events do not consume it: within one session the ZooKeeper client sets its watches again when it
 * reconnects and is told of a deletion it missed meanwhile. The end of the session is not reported
 * here; the store reports it for all holds. If setting the watch fails (the connection was lost for
 * longer than Curator waits), {@link #isArmed()} is false and the store sets it again with {@link
 * #armIfUnset()} once reconnected; a node deleted meanwhile is then found missing and reported.
 */
public final class HoldWatch implements Watcher, BackgroundCallback {

  private static final Logger log = LoggerFactory.getLogger(HoldWatch.class);

  private enum State {
    /** Set, but the hold is not recorded yet. */
    PENDING,
    /** Pending, and the node was found deleted: {@link #start()} reports it. */
    PENDING_DELETED,
    WATCHING,
    ENDED_BY_HOLDER,
    DELETED
  }

  private final CuratorFramework curator;
  private final String path;
  private final Runnable onDeleted;
  private final AtomicReference<State> state = new AtomicReference<>(State.PENDING);
  private volatile boolean armed;

  /**
   * A watch, not yet set, on the hold's node at {@code path}; {@code onDeleted} runs at most once,
   * on a ZooKeeper thread (or the caller of {@link #start()}), so it must hand its work off
   * quickly.
   */
  public HoldWatch(CuratorFramework curator, String path, Runnable onDeleted) {
    this.curator = curator;
    this.path = path;
    this.onDeleted = onDeleted;
  }

  /**
   * This watch as the watcher of the {@code getChildren} that lists the node's queue: once that
   * listing has succeeded with the node in it, the watch is set.
   */
  public Watcher asChildWatcher() {
    armed = true; // Used only for a grant, which the listing's success made.
    return this;
  }

  /**
   * Sets the watch on the node with an {@code exists} in the background: the request is pipelined
   * behind the caller's next request and adds no wait to it. Never throws; a failure leaves the
   * watch unarmed.
   */
  public void arm() {
    State s = state.get();
    if (s != State.PENDING && s != State.WATCHING) {
      return;
    }
    try {
      curator.checkExists().usingWatcher(this).inBackground(this).forPath(path);
    } catch (Exception e) {
      armed = false;
      log.debug("Watching lock node {} failed; it is watched again after a reconnect", path, e);
    }
  }

  /** Sets the watch again if the last attempt failed. */
  public void armIfUnset() {
    if (!armed) {
      arm();
    }
  }

  /** The hold is recorded: from now on a deletion is reported, including one seen while pending. */
  public void start() {
    if (!state.compareAndSet(State.PENDING, State.WATCHING)
        && state.compareAndSet(State.PENDING_DELETED, State.DELETED)) {
      onDeleted.run();
    }
  }

  /** Whether the watch is known to be set on the server. */
  public boolean isArmed() {
    return armed;
  }

  /**
   * The holder ends the hold itself (or never had it): whatever happens to the node from now on is
   * not reported. Returns false if the watch had already reported the node's deletion.
   */
  public boolean end() {
    while (true) {
      State s = state.get();
      if (s == State.DELETED) {
        return false;
      }
      if (s == State.ENDED_BY_HOLDER || state.compareAndSet(s, State.ENDED_BY_HOLDER)) {
        return true;
      }
    }
  }

  /** Whether the watch has reported the node deleted by someone else. */
  public boolean isDeleted() {
    return state.get() == State.DELETED;
  }

  /** The answer to the background {@code exists}. */
  @Override
  public void processResult(CuratorFramework client, CuratorEvent event) {
    KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
    if (code == KeeperException.Code.OK) {
      armed = true;
    } else if (code == KeeperException.Code.NONODE) {
      deleted(); // Gone before the watch was set.
    } else {
      armed = false;
      log.debug("Watching lock node {} failed ({}); watched again after a reconnect", path, code);
    }
  }

  @Override
  public void process(WatchedEvent event) {
    switch (event.getType()) {
      case NodeDeleted:
        // Our node, or the queue's parent (which cannot go while our node is in it).
        deleted();
        break;
      case None:
        break; // A connection state: the watch stays set within the session.
      default:
        // The queue changed (children watch) or the node's data did: watch the node itself.
        armed = false;
        arm();
        break;
    }
  }

  private void deleted() {
    while (true) {
      State s = state.get();
      if (s == State.PENDING) {
        if (state.compareAndSet(s, State.PENDING_DELETED)) {
          return;
        }
      } else if (s == State.WATCHING) {
        if (state.compareAndSet(s, State.DELETED)) {
          onDeleted.run();
          return;
        }
      } else {
        return;
      }
    }
  }
}
