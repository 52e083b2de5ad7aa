package dev.locksmith.zookeeper;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.QueuedAttempt;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.spi.StoreListener;
import dev.locksmith.spi.WaitQueue;
import dev.locksmith.zookeeper.internal.GrantedAttempt;
import dev.locksmith.zookeeper.internal.Holds;
import dev.locksmith.zookeeper.internal.Holds.Hold;
import dev.locksmith.zookeeper.internal.LockNodes;
import dev.locksmith.zookeeper.internal.LockNodes.QueueNode;
import dev.locksmith.zookeeper.internal.LockQueue;
import dev.locksmith.zookeeper.internal.LockQueue.Entry;
import dev.locksmith.zookeeper.internal.LockQueue.Look;
import dev.locksmith.zookeeper.internal.LockQueue.OwnNode;
import dev.locksmith.zookeeper.internal.QueuePlace;
import dev.locksmith.zookeeper.internal.ReleaseWatch;
import dev.locksmith.zookeeper.internal.SessionWatch;
import dev.locksmith.zookeeper.internal.ZooKeeperFailure;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

/**
 * A lock store on ZooKeeper: a fair queue of ephemeral sequential nodes per lock, bound to the
 * Curator session.
 *
 * <p>A lock called {@code name} is the children of {@code basePath/<encoded name>}, or, for a store
 * with a key prefix, of {@code basePath/<encoded prefix>+/<encoded name>} (the {@code +}, which an
 * encoded name never contains, keeps every (prefix, name) pair apart): {@code lock-<owner tag>-N}
 * for the exclusive lock, {@code read-…} and {@code write-…} for the read-write lock. Parents are
 * container nodes, which the server's container reaper removes some time after they are left empty,
 * so released names leave nothing behind. An attempt creates its node and holds the lock when no
 * node it must wait for precedes it: any earlier node of another owner for an exclusive or write
 * attempt, any earlier write node of another owner for a read attempt (so a stream of readers
 * cannot starve a queued writer). A waiter watches only the one node it waits for, so a release
 * wakes one waiter, not the herd.
 *
 * <p>Promises and their limits:
 *
 * <ul>
 *   <li><b>Session bound.</b> A hold lasts until it is released or the ZooKeeper session ends;
 *       lease times are ignored, {@link #extend} only checks that the node still exists. The
 *       connection state reaches the engine: {@code SUSPENDED} → {@link StoreListener#suspended()}
 *       (leases report invalid), {@code RECONNECTED} with the same session → {@link
 *       StoreListener#resumed()}, {@code LOST} or a new session → {@link
 *       StoreListener#sessionLost}, once per session and always before any hold of the next session
 *       is handed out. A holder paused for longer than the session timeout (GC, SIGSTOP) is told
 *       when it runs again: its client finds the connection dead and the session expired, and its
 *       {@link #release} then answers {@code NOT_HELD} (the node went with the session), never an
 *       outage; writes it makes before it hears of it need fencing tokens.
 *   <li><b>Deleted nodes.</b> A watch on every node held longer than {@code Holds.WATCH_DELAY} (100
 *       ms) reports its deletion by anyone but this store (an operator, a client with an open ACL)
 *       through {@link StoreListener#holdLost}, with the hold's token, within that delay and a
 *       round trip; the store's own release and close are never reported. A report reaches the
 *       engine before any later hold of the same owner on that lock, which may carry the same
 *       token. Shorter holds are not watched (a watch on a node its holder deletes costs a
 *       notification per release); their release finds a deleted node gone and says so.
 *   <li><b>Fencing.</b> The token is the {@code czxid} (creation transaction id) of the holder's
 *       node: it increases across the ensemble and across restarts and parent re-creation, unlike
 *       the sequence suffix. A read hold's token is the last writer's token (kept in the parent's
 *       data), or the parent's {@code czxid} if no writer held it since the parent was created, so
 *       concurrent readers share it and every later writer's token is greater; a parent the reaper
 *       deleted and an acquire created again has a {@code czxid} above every token handed out
 *       before.
 *   <li><b>Reentrancy</b> per owner: within this store (one session) the nested hold count is kept
 *       here, next to the node that this session owns. The same owner id through another store
 *       (another session) cannot share a foreign ephemeral node: it queues its own node, which is
 *       granted at once when every node before it is the same owner's, with the first node's token.
 *       The lock frees when every such node is gone.
 *   <li><b>Failures.</b> Operations throw Curator's and ZooKeeper's exceptions as they come, and
 *       the engine reports them as {@code LockStoreException}s of the kind {@link #classify} finds
 *       in ZooKeeper's error code; an operation waits at most the Curator client's connection
 *       timeout for a connection. A release whose delete got no answer keeps the hold and throws,
 *       so that asking again deletes the node (Curator's guaranteed delete also retries it in the
 *       background). A waiter in the queue whose connection is suspended keeps its place (it
 *       reports busy); once its session is lost it is woken and its attempt fails.
 *   <li><b>Security.</b> With an ACL list (for example creator-all from a digest identity), every
 *       lock node and parent this store creates carries it, so other identities cannot delete or
 *       take over the nodes.
 * </ul>
 *
 * <p>The store is thread-safe. It does not close a Curator client it was given; when closed it
 * deletes the nodes it still has in that session. The provider's store owns its client and closes
 * it, which ends the session.
 */
public final class ZooKeeperLockStore implements LockStore {

  private static final Set<Capability> PROMISES =
      Set.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);

  /** Who closes the Curator client, and with it the session. */
  private enum CuratorOwner {
    /** The caller: closing the store deletes its nodes in the session, which lives on. */
    CALLER,
    /** The store (the provider built the client): closing the store closes it. */
    STORE
  }

  private final CuratorFramework curator;
  private final String basePath;
  private final String keyPrefix;
  private final CuratorOwner owner;
  private final SessionWatch session;
  private final Holds holds;
  private final LockQueue queue;

  /**
   * A store on a started Curator client, with the client's own ACL provider for the nodes.
   *
   * @param curator a started client; the caller keeps owning it (closing the store does not close
   *     it)
   * @param basePath the parent of all lock nodes, such as {@code /locks}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the client is not started, or the path is not a valid
   *     absolute ZooKeeper path, is the root, or lies in the server's reserved tree {@code
   *     /zookeeper}
   */
  public ZooKeeperLockStore(CuratorFramework curator, String basePath) {
    this(curator, basePath, null, "", CuratorOwner.CALLER);
  }

  /**
   * A store on a started Curator client whose lock nodes (and the parents it creates) carry {@code
   * acl}, for example {@code ZooDefs.Ids.CREATOR_ALL_ACL} with a client authenticated by {@code
   * digest}, so that other identities cannot delete them.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException as {@link #ZooKeeperLockStore(CuratorFramework, String)}, or
   *     if {@code acl} is empty
   */
  public ZooKeeperLockStore(CuratorFramework curator, String basePath, List<ACL> acl) {
    this(curator, basePath, LockNodes.checkAcl(acl), "", CuratorOwner.CALLER);
  }

  /** A store that owns {@code curator}: closing the store closes it, which ends the session. */
  static ZooKeeperLockStore owning(
      CuratorFramework curator, String basePath, @Nullable List<ACL> acl, String keyPrefix) {
    return new ZooKeeperLockStore(curator, basePath, acl, keyPrefix, CuratorOwner.STORE);
  }

  private ZooKeeperLockStore(
      CuratorFramework curator,
      String basePath,
      @Nullable List<ACL> acl,
      String keyPrefix,
      CuratorOwner owner) {
    this.curator = Objects.requireNonNull(curator, "curator must not be null");
    this.basePath = LockNodes.checkBasePath(basePath);
    this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    this.owner = owner;
    if (curator.getState() != CuratorFrameworkState.STARTED) {
      throw new IllegalArgumentException(
          "the Curator client must be started (call curator.start() first); its state is "
              + curator.getState());
    }
    this.session = new SessionWatch(curator);
    this.holds = new Holds(curator, session);
    this.queue = new LockQueue(curator, session, basePath, keyPrefix, acl);
    session.start(holds::watchAgain);
  }

  /** The parent of every lock node of this store. */
  public String basePath() {
    return basePath;
  }

  /** The path under which the queue of {@code key}'s name lives (its parent node). */
  public String lockPath(LockKey key) {
    return queue.path(key);
  }

  @Override
  public String keyPrefix() {
    return keyPrefix;
  }

  @Override
  public String describe() {
    return "zookeeper";
  }

  @Override
  public Set<Capability> promises() {
    return PROMISES;
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    // A waiting writer's place is its queue node, which leaving the queue deletes: no mark.
    return Optional.of((key, owner) -> {});
  }

  @Override
  public Optional<WaitQueue> waitQueue() {
    return Optional.of(this::enqueue);
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return Optional.of(this::onRelease);
  }

  @Override
  public Optional<SessionEvents> sessionEvents() {
    return Optional.of(session);
  }

  /** Kinds from ZooKeeper's error codes: see {@link ZooKeeperFailure}. */
  @Override
  public StoreFailure classify(Exception failure) {
    return ZooKeeperFailure.kind(failure);
  }

  // The store operations.

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    return holds.withSlot(
        key,
        owner,
        slot -> {
          Hold nested = slot.reenter();
          if (nested != null) {
            return Acquisition.acquired(nested.token(), nested.count());
          }
          // Round trips: create our node (1 write) and list the queue behind it (1 read, sent
          // with the create) to see whether anything precedes it, and only if it does not hold,
          // delete it again (1 write).
          Entry entry = queue.enter(key, owner);
          OwnNode node = entry.node();
          Hold hold = null;
          try {
            Look look = queue.look(key, owner, entry);
            if (look.blocker() == null) {
              hold = queue.grant(slot, key, node, look.queue());
            }
          } finally {
            if (hold == null) {
              queue.deleteQuietly(node.path()); // Not granted: leave no orphan in the queue.
            }
          }
          return hold == null ? Acquisition.busy() : Acquisition.acquired(hold.token(), 1);
        });
  }

  private QueuedAttempt enqueue(LockKey key, String owner, Duration leaseTime) throws Exception {
    return holds.withSlot(
        key,
        owner,
        slot -> {
          Hold nested = slot.reenter();
          if (nested != null) {
            return new GrantedAttempt(Acquisition.acquired(nested.token(), nested.count()));
          }
          // The same round trip as tryAcquire: create our node and list the queue behind it. A
          // node that holds at once is granted here, so the uncontended acquire costs exactly
          // create + getChildren; a node that waits keeps what the listing told (its blocker), so
          // the first awaitChange only sets a watch on that node.
          Entry entry = queue.enter(key, owner);
          OwnNode node = entry.node();
          Look look;
          try {
            look = queue.look(key, owner, entry);
          } catch (InterruptedException | KeeperException.ConnectionLossException e) {
            if (e instanceof InterruptedException) {
              // Swallowed: the engine must still see the interrupt, end the wait and close us.
              Thread.currentThread().interrupt();
            }
            // Our node stands in the queue: keep the place and let the place look again.
            return new QueuePlace(queue, holds, key, owner, node, null);
          } catch (Exception e) {
            queue.deleteQuietly(node.path()); // Not granted: leave no orphan in the queue.
            throw e;
          }
          if (look.blocker() != null) {
            return new QueuePlace(queue, holds, key, owner, node, look);
          }
          Hold hold = null;
          try {
            hold = queue.grant(slot, key, node, look.queue());
          } finally {
            if (hold == null) {
              queue.deleteQuietly(node.path());
            }
          }
          return new GrantedAttempt(Acquisition.acquired(hold.token(), 1));
        });
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return holds.withSlot(
        key,
        owner,
        // A session bound hold needs no lease: this only checks that its node is still there.
        slot -> slot.confirmed() != null);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    return holds.withSlot(
        key,
        owner,
        slot -> {
          session.awaitConnected();
          Hold hold = slot.live();
          if (hold == null) {
            queue.removeOrphans(key, owner);
            return ReleaseOutcome.NOT_HELD;
          }
          if (hold.count() > 1) {
            if (slot.confirmed() == null) {
              return ReleaseOutcome.NOT_HELD; // Its node is gone; this answer tells the engine.
            }
            hold.unnest();
            return ReleaseOutcome.HOLD_DECREMENTED;
          }
          // One round trip: delete our node. The lock's parent stays; it is a container node, so
          // the server's reaper removes it once it is empty (deleting it here would cost a write
          // per release and make the next acquire of the name re-create it).
          return slot.release(hold);
        });
  }

  @Override
  public LockState read(LockKey key) throws Exception {
    session.checkOpen();
    session.awaitConnected();
    for (int attempt = 0; attempt < 5; attempt++) {
      List<QueueNode> listed = queue.list(key);
      if (listed.isEmpty()) {
        return LockState.FREE;
      }
      QueueNode first = listed.get(0);
      if (key.mode() != LockMode.EXCLUSIVE && !first.isWrite()) {
        int readers = 0;
        while (readers < listed.size() && !listed.get(readers).isWrite()) {
          readers++;
        }
        return LockState.heldByReaders(readers);
      }
      String holder;
      try {
        holder = queue.ownerOf(key, first);
      } catch (KeeperException.NoNodeException e) {
        continue; // The holder left while we looked: look again.
      }
      LockKey held =
          key.mode() == LockMode.EXCLUSIVE ? key : new LockKey(key.name(), LockMode.WRITE);
      return LockState.heldBy(holder, holds.countAt(held, holder, first.name()), null);
    }
    throw new LockStoreException(
        "read of lock '" + key.name() + "' failed: its queue kept changing");
  }

  private AutoCloseable onRelease(LockKey key, Runnable onRelease) throws Exception {
    Objects.requireNonNull(onRelease, "onRelease must not be null");
    session.checkOpen();
    ReleaseWatch watch = new ReleaseWatch(curator, session, queue.path(key), onRelease);
    watch.arm();
    return watch;
  }

  @Override
  public void close() {
    if (!session.close()) {
      return;
    }
    // Ended first, so that neither our deletes nor the session's end are reported as losses.
    List<String> nodes = holds.endAll();
    if (owner == CuratorOwner.STORE) {
      curator.close(); // Ends the session: ZooKeeper deletes every ephemeral node of it at once.
    } else {
      nodes.forEach(queue::deleteQuietly); // The caller's session lives on: delete ours in it.
    }
  }
}
