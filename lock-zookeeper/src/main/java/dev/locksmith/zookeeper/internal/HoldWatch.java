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
 * deleted the node (an operator, a client with an open ACL), so that the holder is told promptly
 * instead of believing it still holds.
 *
 * <p>The watch is an {@code exists} on the node, sent in the background by {@link #arm()}. {@link
 * Holds} arms it only once the hold has lasted {@link Holds#WATCH_DELAY}: most holds are shorter,
 * and a watch on a node its holder deletes itself costs the server a notification and the client a
 * wake-up of its event thread, which at 16 threads cost 13 % of the uncontended throughput. A node
 * deleted before the watch is set is found missing by the {@code exists} and reported then; a hold
 * released before is not watched at all (its release finds the node gone and says so).
 *
 * <p>The holder calls {@link #end()} before it deletes the node itself (release, close): from then
 * on nothing is reported. Exactly one of the two happens: either the holder ends the watch, or the
 * watch reports the deletion.
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
    WATCHING,
    ENDED_BY_HOLDER,
    DELETED
  }

  private final CuratorFramework curator;
  private final String path;
  private final Runnable onDeleted;
  private final AtomicReference<State> state = new AtomicReference<>(State.WATCHING);
  private volatile boolean armed;

  /**
   * A watch, not yet set, on the node of a recorded hold at {@code path}; {@code onDeleted} runs at
   * most once, on a ZooKeeper thread, so it must hand its work off quickly.
   */
  public HoldWatch(CuratorFramework curator, String path, Runnable onDeleted) {
    this.curator = curator;
    this.path = path;
    this.onDeleted = onDeleted;
  }

  /**
   * Sets the watch on the node with an {@code exists} in the background, so that no caller waits
   * for it (the store's sweep and reconnect call this). Does nothing once the holder ended the
   * watch or it reported. Never throws; a failure leaves the watch unarmed.
   */
  public void arm() {
    if (state.get() != State.WATCHING) {
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
        deleted();
        break;
      case None:
        break; // A connection state: the watch stays set within the session.
      default:
        // The node's data changed: the watch fired, so set it again.
        armed = false;
        arm();
        break;
    }
  }

  private void deleted() {
    if (state.compareAndSet(State.WATCHING, State.DELETED)) {
      onDeleted.run();
    }
  }
}
