package dev.locksmith.zookeeper.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.zookeeper.internal.Holds.Hold;
import dev.locksmith.zookeeper.internal.LockNodes.QueueNode;
import dev.locksmith.zookeeper.internal.LockQueue.Look;
import dev.locksmith.zookeeper.internal.LockQueue.OwnNode;
import java.util.List;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

/**
 * A waiting attempt's place in a lock's queue: one ephemeral sequential node of the store's
 * session.
 *
 * <p>{@link #poll()} grants the lock once no node before ours blocks it; {@link #awaitChange}
 * watches the one node we wait for, so that a release wakes one waiter, not the herd. The place
 * survives a suspended connection ({@code poll} answers busy) and ends with its session: once the
 * session's loss is reported (Curator's {@code LOST}, at the latest a session timeout after the
 * connection went), the waiter is woken, and {@code poll} and {@code awaitChange} fail with {@link
 * LockStoreException}, as {@code poll} does when someone else deleted our node. {@link #close()}
 * deletes the node unless the lock was granted.
 *
 * <p>Round trips: each step asks the server at most once, and not at all where the last step's
 * answer still tells: the enqueue's listing names our first blocker, a listing that found nothing
 * blocking us is the one {@code poll} grants from, and when the node we wait for was first in the
 * queue and ours right behind it, its deletion alone makes ours first (a node created later sorts
 * after ours), so the hand-off grants without listing the queue again. That shortcut watches our
 * own node too: ZooKeeper delivers a session's events in order, so if someone else deleted our node
 * first, we hear of it before the deletion we wait for, and list the queue as before.
 */
public final class QueuePlace implements QueuedAttempt {

  private final LockQueue queue;
  private final Holds holds;
  private final SessionWatch session;
  private final LockKey key;
  private final String owner;
  private final OwnNode node;
  private final WatcherRemoveCuratorFramework watching;
  private final Watcher watcher;
  private final Watcher ownNodeWatcher;
  private final Runnable onSessionEnd = this::signal;
  private volatile @Nullable Runnable signal;

  // Written by the watchers on the ZooKeeper event thread.
  private volatile @Nullable String watchedPath;
  private volatile @Nullable String deletedPath;
  private volatile boolean ownNodeDeleted;

  // Guarded by this place's monitor.
  private @Nullable Acquisition acquired;
  private boolean done;

  /** The enqueue's listing and the node we wait for in it; null once used or if unknown. */
  private @Nullable Look known;

  /**
   * The queue without the node we watch, if that node was first and ours right behind it: the queue
   * once it is deleted. Null otherwise.
   */
  private @Nullable List<QueueNode> queueWithoutBlocker;

  /** Whether our own node is watched (only ever for the hand-off shortcut). */
  private boolean ownNodeWatched;

  /**
   * The queue as listed when nothing blocked our node, or null. This never goes stale: only nodes
   * that sort before ours can block it, and new nodes always sort after ours.
   */
  private @Nullable List<QueueNode> freeQueue;

  /** Whether awaitChange just found our blocker alive and set a watch that signals its end. */
  private boolean blockerWatched;

  /**
   * {@code owner}'s place {@code node} in {@code key}'s queue; {@code known} is the enqueue's
   * listing with the node ours waits for, if the enqueue got that far, else null.
   */
  public QueuePlace(
      LockQueue queue, Holds holds, LockKey key, String owner, OwnNode node, @Nullable Look known) {
    this.queue = queue;
    this.holds = holds;
    this.session = queue.session();
    this.key = key;
    this.owner = owner;
    this.node = node;
    this.known = known != null && known.blocker() != null ? known : null;
    this.watching = queue.curator().newWatcherRemoveCuratorFramework();
    this.watcher =
        event -> {
          String path = event.getPath();
          if (event.getType() == Watcher.Event.EventType.NodeDeleted
              && path != null
              && path.equals(watchedPath)) {
            deletedPath = path;
          }
          signal();
        };
    this.ownNodeWatcher =
        event -> {
          if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            ownNodeDeleted = true;
            signal();
          }
        };
    // Our node goes with the session: when its loss is reported, the waiter must ask at once.
    session.onSessionEnd(onSessionEnd);
  }

  private void signal() {
    Runnable s = signal;
    if (s != null) {
      s.run();
    }
  }

  @Override
  public synchronized Acquisition poll() throws Exception {
    if (acquired != null) {
      return acquired;
    }
    checkPlace();
    if (!session.isConnected()) {
      return Acquisition.busy(); // Suspended: keep our place until the session is lost.
    }
    if (blockerWatched) {
      // awaitChange saw our blocker alive just now and watches it: no need to ask again, the
      // watch signals when it leaves (or the connection changes).
      blockerWatched = false;
      return Acquisition.busy();
    }
    List<QueueNode> free = freeQueue;
    freeQueue = null;
    return holds.withSlot(
        key,
        owner,
        slot -> {
          List<QueueNode> listed = free;
          if (listed == null) {
            try {
              listed = queue.list(key);
            } catch (KeeperException.ConnectionLossException e) {
              return Acquisition.busy(); // Keep our place; the session may well survive.
            }
          }
          QueueNode mine = LockQueue.find(listed, node);
          if (mine == null) {
            checkPlace();
            throw new LockStoreException(
                "acquire of lock '"
                    + key.name()
                    + "': its queue node "
                    + node.path()
                    + " was deleted");
          }
          if (queue.blockerOf(key, owner, listed, mine) != null) {
            return Acquisition.busy();
          }
          Hold existing = slot.nestable();
          Acquisition result;
          if (existing != null) {
            // The owner took the lock meanwhile through another call: nest, drop our node.
            result = Acquisition.acquired(existing.token(), existing.nest());
            queue.deleteQuietly(node.path());
          } else {
            result = Acquisition.acquired(queue.grant(slot, key, node, listed).token(), 1);
          }
          acquired = result;
          done = true;
          watching.removeWatchers();
          session.noLongerWaiting(onSessionEnd);
          return result;
        });
  }

  private void checkPlace() {
    if (session.isOver(node.session())) {
      throw new LockStoreException(
          "acquire of lock '"
              + key.name()
              + "' failed: the ZooKeeper session ended while waiting, and its place in the queue"
              + " with it");
    }
  }

  /**
   * Round trips: one listing of the queue (none the first time, when the enqueue's listing named
   * our blocker, and none after a blocker that was first and ours right behind it was deleted),
   * then, only if something blocks us, one exists-with-watch on that one node.
   */
  @Override
  public synchronized void awaitChange(Runnable signal) throws Exception {
    this.signal = signal;
    blockerWatched = false;
    freeQueue = null;
    List<QueueNode> next = queueWithoutBlocker;
    queueWithoutBlocker = null;
    String left = deletedPath;
    session.checkOpen();
    checkPlace(); // A place of an ended session waits for nothing: say so now.
    if (!session.isConnected()) {
      // Suspended: the engine polls again after its cap; watches come back with the session, and
      // the session's end wakes us.
      return;
    }
    if (next != null && left != null && left.equals(watchedPath) && !ownNodeDeleted) {
      freeQueue = next; // The first node left and ours was right behind it: our turn.
      signal.run();
      return;
    }
    try {
      Look look = known;
      known = null;
      List<QueueNode> listed = look != null ? look.queue() : queue.list(key);
      QueueNode mine = LockQueue.find(listed, node);
      if (mine == null) {
        signal.run(); // Our node is gone: poll will tell.
        return;
      }
      QueueNode blocker = look != null ? look.blocker() : queue.blockerOf(key, owner, listed, mine);
      if (blocker == null) {
        freeQueue = listed; // Our turn: poll grants from this listing.
        signal.run();
        return;
      }
      String blockerPath = queue.path(key, blocker);
      watchedPath = blockerPath;
      deletedPath = null;
      boolean handOff = listed.indexOf(blocker) == 0 && listed.indexOf(mine) == 1;
      if (handOff && !ownNodeWatched) {
        // Sent before the blocker's watch, so its answer and any deletion of our node come first.
        watching
            .checkExists()
            .usingWatcher(ownNodeWatcher)
            .inBackground(
                (client, event) -> {
                  if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                    ownNodeDeleted = true;
                    signal();
                  }
                })
            .forPath(node.path());
        ownNodeWatched = true;
      }
      if (watching.checkExists().usingWatcher(watcher).forPath(blockerPath) == null) {
        signal.run(); // It left before the watch was set.
      } else {
        blockerWatched = true;
        if (handOff) {
          queueWithoutBlocker = listed.subList(1, listed.size());
        }
      }
    } catch (KeeperException.ConnectionLossException e) {
      // Poll again later; a watch set before the loss survives with the session.
    }
  }

  @Override
  public synchronized void close() {
    if (done) {
      return;
    }
    done = true;
    watching.removeWatchers();
    session.noLongerWaiting(onSessionEnd);
    if (session.isClosed()) {
      return; // The store's session is gone or going, and the node with it.
    }
    // Also when the node's session has ended: the server may not have noticed yet, and its
    // protected name is unique, so deleting it can never touch anyone else's node.
    queue.deleteQuietly(node.path());
  }
}
