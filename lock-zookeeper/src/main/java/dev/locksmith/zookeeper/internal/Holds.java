package dev.locksmith.zookeeper.internal;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holds of one store's session, one {@link Slot} per (lock, owner): the node that carries the
 * hold, its fencing token, the owner's nested hold count, and the watch that reports the node's
 * deletion by anyone else.
 *
 * <p>Reentrancy lives here: within one session the same owner's second acquire nests on the node it
 * already has instead of queueing another. Every operation on one (lock, owner) runs under its
 * slot's monitor ({@link #withSlot}), so an owner's acquires, releases and a waiting attempt's
 * grant never interleave, while different owners never wait for each other. A hold of an ended
 * session, or whose node someone else deleted, is dropped when it is next used ({@link
 * Slot#live()}).
 *
 * <p><b>A report names its hold, and never outlives it.</b> The engine ends the leases whose key,
 * owner and token a loss report names, and one owner's successive holds of a lock may carry the
 * same token (readers share the last writer's token; an owner's nodes in two sessions share the
 * first one's). So a report of an earlier hold must reach the engine before a later hold of the
 * same owner does: a call that drops a hold whose loss is being reported, or hands out a hold of a
 * session whose predecessor's loss is not reported yet, makes sure of that report once it has let
 * the slot's monitor go, before it returns ({@link Report#settle}); the store's own release and
 * close end the watch first and are never reported.
 *
 * <p>A hold's node is watched ({@link HoldWatch}) once the hold has lasted {@link #WATCH_DELAY}: a
 * sweep on the store's event thread arms the watches of the holds granted that long ago and still
 * held, so that a hold released sooner costs no watch at all. A node deleted by someone else is
 * thus reported within {@code WATCH_DELAY}, one sweep interval and a round trip.
 *
 * <p>A release deletes the node before it forgets the hold: a release that failed on a broken
 * connection leaves the hold in place, so that asking again (the engine does, in the background)
 * deletes the node, instead of leaving a node that no hold knows of for the session's life.
 */
public final class Holds {

  /** How long a hold lasts before its node is watched. */
  public static final Duration WATCH_DELAY = Duration.ofMillis(100);

  private static final Duration SWEEP_INTERVAL = WATCH_DELAY.dividedBy(2);

  private static final Logger log = LoggerFactory.getLogger(Holds.class);

  /** Whether a delete of a hold's node was sent before: if so, a missing node may be its doing. */
  private enum Delete {
    FIRST,
    REPEATED
  }

  private final CuratorFramework curator;
  private final SessionWatch session;
  private final ConcurrentHashMap<HoldId, Slot> slots = new ConcurrentHashMap<>();

  /** Granted holds whose watch is not armed yet, oldest first; read by the sweep alone. */
  private final ConcurrentLinkedQueue<Hold> unwatched = new ConcurrentLinkedQueue<>();

  private final AtomicBoolean sweepScheduled = new AtomicBoolean();

  /** No holds yet, in {@code session} of {@code curator}. */
  public Holds(CuratorFramework curator, SessionWatch session) {
    this.curator = curator;
    this.session = session;
  }

  /** A store operation on one (lock, owner) slot, throwing what ZooKeeper throws. */
  @FunctionalInterface
  public interface SlotCall<T> {
    /** Runs with the slot's monitor held. */
    T run(Slot slot) throws Exception;
  }

  /**
   * Runs {@code body} on the slot of ({@code key}, {@code owner}) with its monitor held; a slot
   * left without a hold is removed afterwards. Loss reports the body found it must make sure of are
   * settled after the monitor is let go, before this returns or throws.
   *
   * @throws dev.locksmith.LockStoreException if the store is closed
   */
  public <T> T withSlot(LockKey key, String owner, SlotCall<T> body) throws Exception {
    session.checkOpen();
    HoldId id = new HoldId(key, owner);
    while (true) {
      Slot slot = slots.computeIfAbsent(id, k -> new Slot(key, owner));
      List<Report> toSettle = null;
      try {
        synchronized (slot) {
          if (slots.get(id) != slot) {
            continue; // Emptied and removed by another thread meanwhile.
          }
          try {
            return body.run(slot);
          } finally {
            toSettle = slot.takeReports();
            if (slot.hold == null) {
              slots.remove(id, slot);
            }
          }
        }
      } finally {
        if (toSettle != null) {
          // Outside the monitor: delivering runs the engine's lease listeners, which may call us.
          Duration timeout = session.reportTimeout();
          for (Report r : toSettle) {
            r.settle(timeout);
          }
        }
      }
    }
  }

  /**
   * The nested hold count of {@code owner}'s hold on {@code key} if it is the node {@code
   * nodeName}, else 1 (a node of another session, whose count is kept there).
   */
  public int countAt(LockKey key, String owner, String nodeName) {
    Slot slot = slots.get(new HoldId(key, owner));
    Hold hold = slot == null ? null : slot.hold;
    return hold != null && hold.path.endsWith("/" + nodeName) ? hold.count : 1;
  }

  /** Sets again the hold watches that could not be set while the connection was down. */
  public void watchAgain() {
    for (Slot slot : slots.values()) {
      Hold hold = slot.hold;
      if (hold != null) {
        hold.watch.armIfUnset();
      }
    }
  }

  private void watchLater(Hold hold) {
    unwatched.add(hold);
    scheduleSweep(WATCH_DELAY);
  }

  private void scheduleSweep(Duration delay) {
    if (sweepScheduled.compareAndSet(false, true)) {
      session.runAfter(delay, this::sweep);
    }
  }

  /** Arms the watches of the holds granted {@link #WATCH_DELAY} ago or earlier. */
  private void sweep() {
    // Cleared before looking, so that a hold queued after the look schedules the next sweep.
    sweepScheduled.set(false);
    long due = System.nanoTime() - WATCH_DELAY.toNanos();
    for (Hold h = unwatched.peek(); h != null && h.grantedAt - due <= 0; h = unwatched.peek()) {
      unwatched.poll();
      // A hold of an ended session has had its loss reported; while the client has no session
      // (reconnecting), watchAgain arms the hold once it reconnects.
      if (h.session == session.id()) {
        h.watch.arm(); // Does nothing for a hold its holder has ended meanwhile.
      }
    }
    if (!unwatched.isEmpty()) {
      scheduleSweep(SWEEP_INTERVAL);
    }
  }

  /**
   * Forgets every hold and returns the nodes of the current session's, which the caller deletes
   * (their watches are ended first, so that the deletes are not reported as losses).
   */
  public List<String> endAll() {
    List<String> paths = new ArrayList<>();
    long current = session.id();
    for (Slot slot : slots.values()) {
      Hold hold = slot.hold;
      if (hold != null && hold.session == current && hold.watch.end()) {
        paths.add(hold.path);
      }
    }
    slots.clear();
    unwatched.clear();
    return paths;
  }

  private record HoldId(LockKey key, String owner) {}

  /** The hold of one (lock, owner) in this session, if any; used only under its monitor. */
  public final class Slot {
    private final LockKey key;
    private final String owner;
    private volatile @Nullable Hold hold;

    /** Reports the current call must make sure of before it returns; null if none. */
    private @Nullable List<Report> toSettle;

    private Slot(LockKey key, String owner) {
      this.key = key;
      this.owner = owner;
    }

    private CuratorFramework curator() {
      return curator;
    }

    private SessionWatch session() {
      return session;
    }

    private void settleLater(Report report) {
      if (toSettle == null) {
        toSettle = new ArrayList<>(1);
      }
      toSettle.add(report);
    }

    private @Nullable List<Report> takeReports() {
      List<Report> taken = toSettle;
      toSettle = null;
      return taken;
    }

    /**
     * The hold, or null if there is none: also when it belongs to an ended session (whose loss is
     * reported for all its holds) or its node was deleted by someone else (whose report this call
     * makes sure of before it returns, so that it cannot reach a later hold).
     */
    public @Nullable Hold live() {
      Hold h = hold;
      if (h == null) {
        return null;
      }
      if (session.isOver(h.session)) {
        hold = null;
        h.watch.end();
        return null;
      }
      if (h.watch.isDeleted()) {
        hold = null;
        settleLater(h.lossReport(null));
        return null;
      }
      return h;
    }

    /**
     * Records that {@code node} holds the lock with {@code token}; if the hold lasts {@link
     * #WATCH_DELAY}, its node is watched so that its deletion by anyone else is reported. If the
     * engine still counts on an older session, the report of that session's loss reaches it before
     * this call returns.
     *
     * @throws dev.locksmith.LockStoreException if the node's session is over
     */
    public Hold grant(LockQueue.OwnNode node, long token) {
      Report before = session.admit(node.session());
      if (before != null) {
        settleLater(before);
      }
      Hold h = new Hold(this, node.path(), token, node.session());
      hold = h;
      watchLater(h);
      return h;
    }

    /**
     * Ends the hold {@code h} because the caller found it gone: the watch reports nothing from now
     * on. Returns false if the watch had reported the node's deletion already; that report then
     * reaches the engine before this call returns.
     */
    public boolean drop(Hold h) {
      hold = null;
      if (h.watch.end()) {
        return true;
      }
      settleLater(h.lossReport(null));
      return false;
    }

    /**
     * The live hold, if its node still exists (one round trip, once connected: while disconnected
     * the session is unknown, and a hold of a session that may well survive is not "gone"); else
     * null. A hold whose node turns out to be gone (or whose session turns out to have expired) is
     * dropped without a report: the caller's answer tells the engine.
     */
    public @Nullable Hold confirmed() throws Exception {
      session.awaitConnected();
      Hold h = live();
      if (h != null && !exists(h)) {
        drop(h);
        return null;
      }
      return h;
    }

    /**
     * The live hold, to nest a new acquire on, or null if there is none. A hold whose release
     * failed half-way is not nested on: its node is deleted first (it may be gone already), and the
     * caller makes a new hold.
     */
    public @Nullable Hold nestable() throws Exception {
      Hold h = live();
      if (h == null || !h.releasing) {
        return h;
      }
      // The owner released it, and the release failed on the way: finish it before anything new.
      try {
        curator.delete().guaranteed().forPath(h.path);
      } catch (KeeperException.NoNodeException | KeeperException.SessionExpiredException gone) {
        // Gone already: our earlier delete, Curator's guaranteed retry of it, or the session.
      }
      hold = null;
      return null;
    }

    /**
     * The live hold nested once more, or null if there is none (see {@link #nestable()}); a hold
     * whose node turns out to be gone is dropped, and its loss reported before this call returns
     * (the caller's answer, a new hold, does not tell the engine of it).
     */
    public @Nullable Hold reenter() throws Exception {
      Hold h = nestable();
      if (h == null) {
        return null;
      }
      if (!exists(h)) {
        if (drop(h)) {
          settleLater(h.lossReport("its lock node " + h.path + " was deleted"));
        }
        return null;
      }
      h.count++;
      return h;
    }

    /**
     * Releases the last nesting of the live hold {@code h}: deletes its node (one round trip) and
     * forgets the hold once the node is gone. The watch is ended first, so that our own delete is
     * not reported as a loss.
     *
     * <p>A release whose answer did not come back keeps the hold and throws, unless the session
     * turns out to have ended meanwhile (a holder paused past its session hears of it only now, as
     * its delete fails): then the node went with the session, and the answer is {@code NOT_HELD},
     * never an outage. Asked again, the release deletes the node; a node that is gone then was
     * deleted by the earlier attempt (or by Curator's guaranteed retry of it).
     */
    public ReleaseOutcome release(Hold h) throws Exception {
      if (!h.watch.end()) {
        hold = null;
        settleLater(h.lossReport(null));
        return ReleaseOutcome.NOT_HELD; // Deleted by someone else, and reported.
      }
      Delete attempt = h.releasing ? Delete.REPEATED : Delete.FIRST;
      h.releasing = true;
      try {
        return deleteNode(h, attempt);
      } catch (KeeperException.ConnectionLossException
          | KeeperException.OperationTimeoutException
          | KeeperException.RequestTimeoutException e) {
        // No answer: the delete may or may not have been done, and the session may have ended
        // meanwhile. Wait for the connection (as every call does) and look again.
        try {
          session.awaitConnected();
        } catch (ConnectException stillDown) {
          e.addSuppressed(stillDown);
          throw e; // Still unreachable: the hold stays, to be released when asked again.
        }
        if (session.isOver(h.session)) {
          hold = null;
          return ReleaseOutcome.NOT_HELD; // Gone with its session.
        }
        return deleteNode(h, Delete.REPEATED);
      }
    }

    private ReleaseOutcome deleteNode(Hold h, Delete attempt) throws Exception {
      try {
        // Guaranteed: if the connection drops now, Curator keeps deleting in the background, so
        // that the node goes even if nobody asks again.
        curator.delete().guaranteed().forPath(h.path);
        hold = null;
        return ReleaseOutcome.RELEASED;
      } catch (KeeperException.SessionExpiredException e) {
        hold = null;
        return ReleaseOutcome.NOT_HELD; // The session ended: the node went with it.
      } catch (KeeperException.NoNodeException e) {
        hold = null;
        // Gone: deleted by an earlier attempt of ours if there was one (in this session), else by
        // the session's end or by someone else.
        return attempt == Delete.REPEATED && !session.isOver(h.session)
            ? ReleaseOutcome.RELEASED
            : ReleaseOutcome.NOT_HELD;
      }
    }

    /**
     * Whether {@code h}'s node still exists. A look that got no answer is made again once
     * reconnected: a holder paused past its session hears of the expiry only as its request fails,
     * and its node is then gone (not "unavailable").
     */
    private boolean exists(Hold h) throws Exception {
      session.awaitConnected();
      try {
        return existsNow(h);
      } catch (KeeperException.ConnectionLossException
          | KeeperException.OperationTimeoutException
          | KeeperException.RequestTimeoutException e) {
        try {
          session.awaitConnected();
        } catch (ConnectException stillDown) {
          e.addSuppressed(stillDown);
          throw e;
        }
        return existsNow(h);
      }
    }

    private boolean existsNow(Hold h) throws Exception {
      if (session.isOver(h.session)) {
        return false; // The session ended, and the node with it.
      }
      try {
        return curator.checkExists().forPath(h.path) != null;
      } catch (KeeperException.SessionExpiredException e) {
        return false;
      }
    }

    /** The report of {@code h}'s deletion, which its watch found. */
    private void deleted(Hold h) {
      // The hold itself is dropped by live() on its next use: taking the slot's monitor here could
      // keep the event thread waiting for a store call in flight.
      session.queue(h.lossReport(null));
    }
  }

  /** One granted hold: its node, token and session, and the owner's nested count on it. */
  public static final class Hold {
    private final Slot slot;
    private final String path;
    private final long token;
    private final long session;
    private final HoldWatch watch;
    private final long grantedAt = System.nanoTime();
    private volatile int count = 1;

    /**
     * Whether its owner released it and a delete of its node was sent (it may not have arrived).
     */
    private volatile boolean releasing;

    private @Nullable Report loss;

    private Hold(Slot slot, String path, long token, long session) {
      this.slot = slot;
      this.path = path;
      this.token = token;
      this.session = session;
      this.watch = new HoldWatch(slot.curator(), path, () -> slot.deleted(this));
    }

    /**
     * The one report of this hold's loss, with {@code reason} (null: deleted by another client);
     * made by whoever needs it first, the watch or a call that found the node gone.
     */
    private synchronized Report lossReport(@Nullable String reason) {
      if (loss == null) {
        String why =
            reason != null
                ? reason
                : "its lock node " + path + " was deleted by another ZooKeeper client";
        LockKey key = slot.key;
        String owner = slot.owner;
        loss =
            slot.session()
                .newReport(
                    engine -> {
                      log.warn("A hold on lock '{}' was lost: {}", key.name(), why);
                      engine.holdLost(key, owner, token, why);
                    });
      }
      return loss;
    }

    /** The path of the node that carries the hold. */
    public String path() {
      return path;
    }

    /** The fencing token. */
    public long token() {
      return token;
    }

    /** The owner's nested hold count. */
    public int count() {
      return count;
    }

    /** Counts one hold more and returns the new count. */
    public int nest() {
      return ++count;
    }

    /** Counts one hold less (the caller checks there is more than one). */
    public void unnest() {
      count--;
    }
  }
}
