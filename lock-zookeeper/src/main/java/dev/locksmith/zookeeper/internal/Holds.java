package dev.locksmith.zookeeper.internal;

import dev.locksmith.spi.LockKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
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
 * Slot#live()}); its loss has been reported by then (by the session's end or the node's watch).
 *
 * <p>A hold's node is watched ({@link HoldWatch}) once the hold has lasted {@link #WATCH_DELAY}: a
 * sweep on the store's event thread arms the watches of the holds granted that long ago and still
 * held, so that a hold released sooner costs no watch at all. A node deleted by someone else is
 * thus reported within {@code WATCH_DELAY}, one sweep interval and a round trip.
 */
public final class Holds {

  /** How long a hold lasts before its node is watched. */
  public static final Duration WATCH_DELAY = Duration.ofMillis(100);

  private static final Duration SWEEP_INTERVAL = WATCH_DELAY.dividedBy(2);

  private static final Logger log = LoggerFactory.getLogger(Holds.class);

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
   * left without a hold is removed afterwards.
   *
   * @throws dev.locksmith.LockStoreException if the store is closed
   */
  public <T> T withSlot(LockKey key, String owner, SlotCall<T> body) throws Exception {
    session.checkOpen();
    HoldId id = new HoldId(key, owner);
    while (true) {
      Slot slot = slots.computeIfAbsent(id, k -> new Slot(key, owner));
      synchronized (slot) {
        if (slots.get(id) != slot) {
          continue; // Emptied and removed by another thread meanwhile.
        }
        try {
          return body.run(slot);
        } finally {
          if (slot.hold == null) {
            slots.remove(id, slot);
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

    private Slot(LockKey key, String owner) {
      this.key = key;
      this.owner = owner;
    }

    /**
     * The hold, or null if there is none: also when it belongs to an ended session or its node was
     * deleted by someone else (its node is gone then, and its loss already reported).
     */
    public @Nullable Hold live() {
      Hold h = hold;
      if (h != null && (h.session != session.id() || h.watch.isDeleted())) {
        hold = null;
        return null;
      }
      return h;
    }

    /**
     * Records that {@code node} holds the lock with {@code token}; if the hold lasts {@link
     * #WATCH_DELAY}, its node is watched so that its deletion by anyone else is reported.
     */
    public Hold grant(LockQueue.OwnNode node, long token) {
      String path = node.path();
      String reason = "its lock node " + path + " was deleted by another ZooKeeper client";
      HoldWatch watch = new HoldWatch(curator, path, () -> deleted(path, token, reason));
      Hold h = new Hold(path, token, node.session(), watch);
      hold = h;
      watchLater(h);
      return h;
    }

    /**
     * Ends the hold {@code h}, before the caller deletes its node or because the caller found it
     * gone: the watch reports nothing from now on. Returns false if the watch had reported the
     * node's deletion already.
     */
    public boolean drop(Hold h) {
      hold = null;
      return h.watch.end();
    }

    /**
     * The live hold, if its node still exists (one round trip, once connected: while disconnected
     * the session is unknown, and a hold of a session that may well survive is not "gone"); else
     * null. A hold whose node turns out to be gone is dropped without a report: the caller's answer
     * tells the engine.
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
     * The live hold nested once more, or null if there is none; a hold whose node turns out to be
     * gone is dropped, and its loss reported unless its watch did (the caller's answer, a new hold,
     * does not tell the engine of it).
     */
    public @Nullable Hold reenter() throws Exception {
      Hold h = live();
      if (h == null) {
        return null;
      }
      if (!exists(h)) {
        if (drop(h)) {
          String reason = "its lock node " + h.path + " was deleted";
          session.report(listener -> listener.holdLost(key, owner, h.token, reason));
        }
        return null;
      }
      h.count++;
      return h;
    }

    private boolean exists(Hold h) throws Exception {
      session.awaitConnected();
      return curator.checkExists().forPath(h.path) != null;
    }

    private void deleted(String path, long token, String reason) {
      // The hold itself is dropped by live() on its next use: taking the slot's monitor here could
      // keep the event thread waiting for a store call in flight.
      session.report(
          listener -> {
            log.warn("Lock node {} of lock '{}' was deleted by someone else", path, key.name());
            listener.holdLost(key, owner, token, reason);
          });
    }
  }

  /** One granted hold: its node, token and session, and the owner's nested count on it. */
  public static final class Hold {
    private final String path;
    private final long token;
    private final long session;
    private final HoldWatch watch;
    private final long grantedAt = System.nanoTime();
    private volatile int count = 1;

    private Hold(String path, long token, long session, HoldWatch watch) {
      this.path = path;
      this.token = token;
      this.session = session;
      this.watch = watch;
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
