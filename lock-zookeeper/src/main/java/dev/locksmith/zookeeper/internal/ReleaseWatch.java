package dev.locksmith.zookeeper.internal;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch on one lock's queue that tells a waiter the lock may have been released: it runs its
 * callback on every change of the lock's children (and on connection events) until it is closed.
 *
 * <p>A ZooKeeper watch fires once, so after each change the watch is set again on the store's event
 * thread; if that fails the waiter is not told again, and the engine's polling takes over.
 */
public final class ReleaseWatch implements AutoCloseable, Watcher {

  private static final Logger log = LoggerFactory.getLogger(ReleaseWatch.class);

  private final SessionWatch session;
  private final String path;
  private final Runnable onRelease;
  private final WatcherRemoveCuratorFramework watching;
  private volatile boolean open = true;

  /** A watch, not yet set, on the lock whose queue is the children of {@code path}. */
  public ReleaseWatch(
      CuratorFramework curator, SessionWatch session, String path, Runnable onRelease) {
    this.session = session;
    this.path = path;
    this.onRelease = onRelease;
    this.watching = curator.newWatcherRemoveCuratorFramework();
  }

  /** Sets the watch; a lock without a queue yet counts as released. */
  public void arm() throws Exception {
    if (!open || session.isClosed()) {
      return;
    }
    try {
      // exists() can watch a parent that is not there yet; getChildren() watches its queue.
      if (watching.checkExists().usingWatcher(this).forPath(path) != null) {
        watching.getChildren().usingWatcher(this).forPath(path);
      }
    } catch (KeeperException.NoNodeException e) {
      onRelease.run();
    }
  }

  @Override
  public void process(WatchedEvent event) {
    if (!open) {
      return;
    }
    onRelease.run();
    if (event.getType() != Event.EventType.None) {
      session.run(this::armAgain); // Set the next watch off ZooKeeper's event thread.
    }
  }

  private void armAgain() {
    try {
      arm();
    } catch (Exception e) {
      log.debug("Re-arming the release watch on {} failed; the engine polls instead", path, e);
    }
  }

  @Override
  public void close() {
    open = false;
    watching.removeWatchers();
  }
}
