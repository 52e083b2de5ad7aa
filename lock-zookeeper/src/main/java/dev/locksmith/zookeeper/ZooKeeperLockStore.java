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
import dev.locksmith.spi.StoreListener;
import dev.locksmith.spi.WaitQueue;
import dev.locksmith.zookeeper.internal.HoldWatch;
import dev.locksmith.zookeeper.internal.LockNodes;
import dev.locksmith.zookeeper.internal.LockNodes.QueueNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.PathUtils;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock store on ZooKeeper: a fair queue of ephemeral sequential nodes per lock, bound to the
 * Curator session.
 *
 * <p>A lock called {@code name} is the children of {@code basePath/<encoded name>} (a container
 * node, which the server's container reaper removes some time after it is left empty): {@code
 * lock-<owner tag>-N} for the exclusive lock, {@code read-…} and {@code write-…} for the read-write
 * lock. An attempt creates its node and holds the lock when no node it must wait for precedes it:
 * any earlier node of another owner for an exclusive or write attempt, any earlier write node of
 * another owner for a read attempt (so a stream of readers cannot starve a queued writer). A waiter
 * watches only the one node it waits for, so a release wakes one waiter, not the herd.
 *
 * <p>Promises and their limits:
 *
 * <ul>
 *   <li><b>Session bound.</b> A hold lasts until it is released or the ZooKeeper session ends;
 *       lease times are ignored, {@link #extend} only checks that the node still exists. The
 *       connection state reaches the engine: {@code SUSPENDED} → {@link StoreListener#suspended()}
 *       (leases report invalid), {@code RECONNECTED} with the same session → {@link
 *       StoreListener#resumed()}, {@code LOST} or a new session → {@link
 *       StoreListener#sessionLost}. A holder paused for longer than the session timeout may still
 *       believe it holds: use fencing tokens.
 *   <li><b>Deleted nodes.</b> A watch on every held node reports its deletion by anyone but this
 *       store (an operator, a client with an open ACL) at once through {@link
 *       StoreListener#holdLost}, for every hold of that owner on that lock; the store's own release
 *       and close are never reported.
 *   <li><b>Fencing.</b> The token is the {@code czxid} (creation transaction id) of the holder's
 *       node: it increases across the ensemble and across restarts and parent re-creation, unlike
 *       the sequence suffix. A read hold's token is the last writer's token (kept in the parent's
 *       data), or the parent's {@code czxid} if no writer held it since the parent was created, so
 *       concurrent readers share it and every later writer's token is greater.
 *   <li><b>Reentrancy</b> per owner: within this store (one session) the nested hold count is kept
 *       here, next to the node that this session owns. The same owner id through another store
 *       (another session) cannot share a foreign ephemeral node: it queues its own node, which is
 *       granted at once when every node before it is the same owner's, with the first node's token.
 *       The lock frees when every such node is gone.
 *   <li><b>Failures.</b> Every operation that cannot reach ZooKeeper throws {@link
 *       LockStoreException} with Curator's or ZooKeeper's exception as cause; an operation waits at
 *       most the Curator client's connection timeout for a connection. A waiter in the queue whose
 *       connection is suspended keeps its place (it reports busy) until its session is lost.
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

  private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);

  private static final Set<Capability> PROMISES =
      Set.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);

  private static final StoreListener NO_LISTENER =
      new StoreListener() {
        @Override
        public void holdLost(LockKey key, String owner, String reason) {}

        @Override
        public void suspended() {}

        @Override
        public void resumed() {}

        @Override
        public void sessionLost(String reason) {}
      };

  /** The tree the ZooKeeper server keeps for itself. */
  private static final String RESERVED_TREE = "/zookeeper";

  private final CuratorFramework curator;
  private final String basePath;
  private final @Nullable List<ACL> acl;
  private final String keyPrefix;
  private final boolean ownsCurator;
  private final ConcurrentHashMap<HoldId, Slot> slots = new ConcurrentHashMap<>();
  private final ExecutorService events;
  private final ConnectionStateListener stateListener = this::stateChanged;
  private volatile StoreListener listener = NO_LISTENER;
  private volatile long sessionId;
  private final AtomicBoolean closed = new AtomicBoolean();

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
    this(curator, basePath, null, "", false);
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
    this(curator, basePath, checkAcl(acl), "", false);
  }

  ZooKeeperLockStore(
      CuratorFramework curator,
      String basePath,
      @Nullable List<ACL> acl,
      String keyPrefix,
      boolean ownsCurator) {
    this.curator = Objects.requireNonNull(curator, "curator must not be null");
    this.basePath = checkBasePath(basePath);
    this.acl = acl;
    this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    this.ownsCurator = ownsCurator;
    if (curator.getState() != CuratorFrameworkState.STARTED) {
      throw new IllegalArgumentException(
          "the Curator client must be started (call curator.start() first); its state is "
              + curator.getState());
    }
    this.events =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "locksmith-zookeeper-events");
              t.setDaemon(true);
              return t;
            });
    this.sessionId = currentSessionId();
    curator.getConnectionStateListenable().addListener(stateListener, events);
  }

  private static List<ACL> checkAcl(List<ACL> acl) {
    Objects.requireNonNull(acl, "acl must not be null");
    if (acl.isEmpty()) {
      throw new IllegalArgumentException("acl must not be empty");
    }
    for (ACL a : acl) {
      Objects.requireNonNull(a, "acl must not contain null");
    }
    return List.copyOf(acl);
  }

  static String checkBasePath(String basePath) {
    Objects.requireNonNull(basePath, "basePath must not be null");
    try {
      PathUtils.validatePath(basePath);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "basePath '" + basePath + "' is not a valid ZooKeeper path: " + e.getMessage(), e);
    }
    if (basePath.equals("/")) {
      throw new IllegalArgumentException("basePath must not be the root '/'; use e.g. /locks");
    }
    // The server keeps its own data there (quotas, the dynamic configuration) and refuses or
    // restricts writes: locks there would fail on every acquire, so refuse them up front.
    if (basePath.equals(RESERVED_TREE) || basePath.startsWith(RESERVED_TREE + "/")) {
      throw new IllegalArgumentException(
          "basePath '"
              + basePath
              + "' is inside "
              + RESERVED_TREE
              + ", the tree the ZooKeeper server keeps reserved for itself; use e.g. /locks");
    }
    return basePath;
  }

  /** The parent of every lock node of this store. */
  public String basePath() {
    return basePath;
  }

  /** The path under which the queue of {@code key}'s name lives. */
  public String lockPath(LockKey key) {
    return basePath + "/" + LockNodes.encode(keyPrefix + key.name());
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
    return Optional.of(this::listen);
  }

  // The store operations.

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    return withSlot(
        key,
        owner,
        "acquire",
        slot -> {
          Acquisition again = reenter(key, owner, slot);
          if (again != null) {
            return again;
          }
          // Round trips: create our node (1 write), list the queue once (1 read) to see whether
          // anything precedes it, and only if it does not hold, delete it again (1 write).
          Created node = createNode(key, owner);
          boolean granted = false;
          try {
            Look look = look(key, owner, node);
            if (look.blocker() == null) {
              Hold hold = grant(slot, key, owner, node, look.queue());
              granted = true;
              return Acquisition.acquired(hold.token, 1);
            }
            return Acquisition.busy();
          } finally {
            if (!granted) {
              deleteQuietly(node.path());
            }
          }
        });
  }

  /** What one listing of the queue told an attempt: the queue and the node it must wait for. */
  private record Look(List<QueueNode> queue, @Nullable QueueNode blocker) {}

  /** Lists {@code key}'s queue once and finds what {@code node}, just created, waits for. */
  private Look look(LockKey key, String owner, Created node) throws Exception {
    List<QueueNode> queue = queue(key);
    QueueNode mine = find(queue, node.path());
    if (mine == null) {
      throw new LockStoreException(
          "acquire of lock '" + key.name() + "': the new node " + node.path() + " vanished");
    }
    return new Look(queue, blockerOf(key, owner, queue, mine));
  }

  private QueuedAttempt enqueue(LockKey key, String owner, Duration leaseTime) {
    return withSlot(
        key,
        owner,
        "acquire",
        slot -> {
          Acquisition again = reenter(key, owner, slot);
          if (again != null) {
            return new GrantedAttempt(again);
          }
          // The same two round trips as tryAcquire: create our node, then list the queue once. A
          // node that holds at once is granted here, so the uncontended acquire costs exactly
          // create + getChildren; a node that waits keeps what the listing told (its blocker), so
          // the first awaitChange only sets a watch on that node.
          Created node = createNode(key, owner);
          Look look;
          try {
            look = look(key, owner, node);
          } catch (InterruptedException | KeeperException.ConnectionLossException e) {
            if (e instanceof InterruptedException) {
              Thread.currentThread().interrupt();
            }
            // Our node stands in the queue: keep the place and let the queue attempt look again
            // (or, when interrupted, let the engine end the wait and close it, deleting the node).
            return new NodeAttempt(key, owner, node, null);
          } catch (Exception e) {
            deleteQuietly(node.path()); // Not granted: leave no orphan in the queue.
            throw e;
          }
          if (look.blocker() == null) {
            boolean granted = false;
            try {
              Hold hold = grant(slot, key, owner, node, look.queue());
              granted = true;
              return new GrantedAttempt(Acquisition.acquired(hold.token, 1));
            } finally {
              if (!granted) {
                deleteQuietly(node.path());
              }
            }
          }
          return new NodeAttempt(key, owner, node, look.blocker().name());
        });
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    return withSlot(
        key,
        owner,
        "extend",
        slot -> {
          // Connected first: while disconnected the session id is unknown, and a hold of a session
          // that may well survive must not be answered "not held" (kit rule 12.8).
          ensureConnected();
          Hold hold = live(slot);
          if (hold == null) {
            return false;
          }
          if (curator.checkExists().forPath(hold.path) == null) {
            slot.hold = null;
            hold.watch.end(); // The engine learns of the loss from this answer: report it once.
            return false;
          }
          return true;
        });
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    return withSlot(
        key,
        owner,
        "release",
        slot -> {
          ensureConnected();
          Hold hold = live(slot);
          if (hold == null) {
            removeOrphans(key, owner);
            return ReleaseOutcome.NOT_HELD;
          }
          if (hold.holds > 1) {
            if (curator.checkExists().forPath(hold.path) == null) {
              slot.hold = null;
              hold.watch.end(); // The engine learns of the loss from this answer: report it once.
              return ReleaseOutcome.NOT_HELD;
            }
            hold.holds--;
            return ReleaseOutcome.HOLD_DECREMENTED;
          }
          slot.hold = null;
          if (!hold.watch.end()) {
            return ReleaseOutcome.NOT_HELD; // Deleted by someone else, and already reported.
          }
          // Ended before the delete, so that the watch does not report our own delete as a loss.
          // One round trip: delete our node. The lock's parent stays; it is a container node, so
          // the server's reaper removes it once it is empty (deleting it here would cost a write
          // per release and make the next acquire of the name re-create it).
          try {
            // Guaranteed: if the connection drops now, Curator keeps deleting in the background.
            curator.delete().guaranteed().forPath(hold.path);
          } catch (KeeperException.NoNodeException e) {
            return ReleaseOutcome.NOT_HELD;
          }
          return ReleaseOutcome.RELEASED;
        });
  }

  @Override
  public LockState read(LockKey key) {
    return call(
        "read",
        key,
        () -> {
          ensureConnected();
          for (int attempt = 0; attempt < 5; attempt++) {
            List<QueueNode> queue = queue(key);
            if (queue.isEmpty()) {
              return LockState.FREE;
            }
            QueueNode first = queue.get(0);
            if (key.mode() != LockMode.EXCLUSIVE && !first.isWrite()) {
              int readers = 0;
              for (QueueNode n : queue) {
                if (n.isWrite()) {
                  break;
                }
                readers++;
              }
              return new LockState(true, null, readers, null);
            }
            byte[] data;
            try {
              data = curator.getData().forPath(lockPath(key) + "/" + first.name());
            } catch (KeeperException.NoNodeException e) {
              continue; // The holder left while we looked: look again.
            }
            String holder = new String(data, StandardCharsets.UTF_8);
            LockKey holderKey =
                key.mode() == LockMode.EXCLUSIVE ? key : new LockKey(key.name(), LockMode.WRITE);
            Slot slot = slots.get(new HoldId(holderKey, holder));
            Hold hold = slot == null ? null : slot.hold;
            int holds = hold != null && hold.path.endsWith("/" + first.name()) ? hold.holds : 1;
            return new LockState(true, holder, holds, null);
          }
          throw new LockStoreException(
              "read of lock '" + key.name() + "' failed: its queue kept changing");
        });
  }

  private AutoCloseable onRelease(LockKey key, Runnable onRelease) {
    Objects.requireNonNull(onRelease, "onRelease must not be null");
    checkOpen();
    ReleaseWatch watch = new ReleaseWatch(lockPath(key), onRelease);
    watch.arm();
    return watch;
  }

  private void listen(StoreListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    curator.getConnectionStateListenable().removeListener(stateListener);
    if (ownsCurator) {
      // Ends the session: ZooKeeper deletes every ephemeral node of it at once.
      curator.close();
    } else {
      // The caller's session lives on: delete what this store still has in it.
      for (Slot slot : slots.values()) {
        Hold hold = slot.hold;
        if (hold != null && hold.session == currentSessionId() && hold.watch.end()) {
          deleteQuietly(hold.path);
        }
      }
    }
    slots.clear();
    events.shutdown();
  }

  // Holds, owned by (key, owner) and guarded by their slot's monitor.

  private record HoldId(LockKey key, String owner) {}

  /** The hold of one (key, owner) in this session, if any. */
  private static final class Slot {
    volatile @Nullable Hold hold;
  }

  private static final class Hold {
    final String path;
    final long token;
    final long session;
    final HoldWatch watch;
    volatile int holds = 1;

    Hold(String path, long token, long session, HoldWatch watch) {
      this.path = path;
      this.token = token;
      this.session = session;
      this.watch = watch;
    }
  }

  /** A store operation that may fail with Curator's or ZooKeeper's checked exceptions. */
  @FunctionalInterface
  private interface ZkCall<T> {
    T run() throws Exception;
  }

  /** A store operation on one (key, owner) slot. */
  @FunctionalInterface
  private interface SlotCall<T> {
    T run(Slot slot) throws Exception;
  }

  private <T> T withSlot(LockKey key, String owner, String operation, SlotCall<T> body) {
    HoldId id = new HoldId(key, owner);
    return call(
        operation,
        key,
        () -> {
          while (true) {
            Slot slot = slots.computeIfAbsent(id, k -> new Slot());
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
        });
  }

  private <T> T call(String operation, LockKey key, ZkCall<T> body) {
    checkOpen();
    try {
      return body.run();
    } catch (LockStoreException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockStoreException(
          operation + " of lock '" + key.name() + "' on zookeeper was interrupted", e);
    } catch (KeeperException.NoAuthException e) {
      throw new LockStoreException(
          operation
              + " of lock '"
              + key.name()
              + "' on zookeeper was refused: this client's identity may not change "
              + e.getPath()
              + " (ACL)",
          e);
    } catch (Exception e) {
      throw new LockStoreException(
          operation + " of lock '" + key.name() + "' failed on zookeeper: " + e, e);
    }
  }

  private @Nullable Hold live(Slot slot) {
    Hold hold = slot.hold;
    if (hold != null && (hold.session != currentSessionId() || hold.watch.isDeleted())) {
      slot.hold = null; // From an ended session, or deleted by someone else: its node is gone.
      return null;
    }
    return hold;
  }

  /** A nested hold if {@code owner} already holds {@code key} in this session, else null. */
  private @Nullable Acquisition reenter(LockKey key, String owner, Slot slot) throws Exception {
    Hold hold = live(slot);
    if (hold == null) {
      return null;
    }
    ensureConnected();
    if (curator.checkExists().forPath(hold.path) == null) {
      slot.hold = null;
      if (hold.watch.end()) { // Else the watch has reported it already.
        String reason = "its lock node " + hold.path + " was deleted";
        fire(() -> listener.holdLost(key, owner, reason));
      }
      return null;
    }
    hold.holds++;
    return Acquisition.acquired(hold.token, hold.holds);
  }

  /**
   * Records that {@code node} now holds {@code key} for {@code owner}, computes its fencing token,
   * and watches the node so that its deletion by anyone else is reported.
   */
  private Hold grant(Slot slot, LockKey key, String owner, Created node, List<QueueNode> queue)
      throws Exception {
    long token;
    if (key.mode() == LockMode.READ) {
      Stat stat = new Stat();
      byte[] data = curator.getData().storingStatIn(stat).forPath(lockPath(key));
      token = data != null && data.length == Long.BYTES ? ByteBuffer.wrap(data).getLong() : 0;
      token = Math.max(token, stat.getCzxid());
    } else {
      token = node.czxid();
      QueueNode first = queue.get(0);
      if (!node.path().endsWith("/" + first.name())) {
        // The same owner holds through an earlier node of another session: share its token.
        Stat stat = curator.checkExists().forPath(lockPath(key) + "/" + first.name());
        if (stat == null) {
          throw new LockStoreException(
              "acquire of lock '" + key.name() + "': the queue changed while granting; retry");
        }
        token = stat.getCzxid();
      }
      if (key.mode() == LockMode.WRITE) {
        // Readers that follow this writer share its token: they must not see an older one.
        curator
            .setData()
            .forPath(lockPath(key), ByteBuffer.allocate(Long.BYTES).putLong(token).array());
      }
    }
    String reason = "its lock node " + node.path() + " was deleted by another ZooKeeper client";
    HoldWatch watch =
        new HoldWatch(
            curator, node.path(), () -> fire(() -> holdDeleted(key, owner, node.path(), reason)));
    Hold hold = new Hold(node.path(), token, node.session(), watch);
    slot.hold = hold;
    watch.arm(); // Last: the hold is recorded by the time a deletion can be reported.
    return hold;
  }

  /**
   * Tells the engine that someone else deleted the node of {@code owner}'s hold on {@code key}. The
   * hold itself is dropped by {@link #live} on its next use: taking the slot's monitor here could
   * keep the event thread waiting for a store call in flight.
   */
  private void holdDeleted(LockKey key, String owner, String path, String reason) {
    if (closed.get()) {
      return;
    }
    log.warn("Lock node {} of lock '{}' was deleted by someone else: hold lost", path, key.name());
    listener.holdLost(key, owner, reason);
  }

  // ZooKeeper access.

  private void checkOpen() {
    if (closed.get()) {
      throw new LockStoreException("this zookeeper lock store is closed");
    }
  }

  /** Waits up to the Curator connection timeout for a connection, else fails fast. */
  private void ensureConnected() throws InterruptedException {
    if (curator.getZookeeperClient().isConnected()) {
      return;
    }
    int timeout = curator.getZookeeperClient().getConnectionTimeoutMs();
    if (!curator.blockUntilConnected(timeout, TimeUnit.MILLISECONDS)) {
      throw new LockStoreException(
          "not connected to zookeeper (waited " + timeout + " ms for the connection)");
    }
  }

  /**
   * A queue node this store created: its path, its creation zxid (the fencing token) and the
   * session that owns it (which tells whether the node is still alive for this store).
   */
  private record Created(String path, long czxid, long session) {}

  private Created createNode(LockKey key, String owner) throws Exception {
    // One round trip while the lock's parent exists. When it does not, Curator creates the
    // parents (containers) and creates again; the server's container reaper may remove an empty
    // parent between the two, so the parent is re-created on each attempt.
    for (int attempt = 1; ; attempt++) {
      try {
        return createNodeOnce(key, owner);
      } catch (KeeperException.NoNodeException e) {
        if (attempt >= 10) {
          throw e;
        }
        log.debug("Parent of lock '{}' vanished during create; retrying", key, e);
      }
    }
  }

  private Created createNodeOnce(LockKey key, String owner) throws Exception {
    ensureConnected();
    String path = lockPath(key) + "/" + LockNodes.prefix(key.mode(), owner);
    byte[] data = owner.getBytes(StandardCharsets.UTF_8);
    Stat stat = new Stat();
    // Protection: if the connection drops after the server created the node, Curator finds it by
    // its GUID prefix instead of leaving an orphan that would block the queue.
    String created;
    if (acl != null) {
      created =
          curator
              .create()
              .storingStatIn(stat)
              .creatingParentContainersIfNeeded()
              .withProtection()
              .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
              .withACL(acl, true)
              .forPath(path, data);
    } else {
      created =
          curator
              .create()
              .storingStatIn(stat)
              .creatingParentContainersIfNeeded()
              .withProtection()
              .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
              .forPath(path, data);
    }
    return new Created(created, stat.getCzxid(), stat.getEphemeralOwner());
  }

  /**
   * Deletes nodes that {@code owner} left in this session's queue for {@code key} without a hold
   * recorded: a create whose answer never arrived (cut short by an interrupt or a timeout) may have
   * made the node all the same. The engine releases such an attempt's owner, which is unique to the
   * attempt, so only that attempt's leftovers can match; other sessions' nodes are never touched.
   */
  private void removeOrphans(LockKey key, String owner) throws Exception {
    if (!curator.getZookeeperClient().isConnected()) {
      return;
    }
    String tag = LockNodes.ownerTag(owner);
    String kind = LockNodes.kindOf(key.mode());
    long session = currentSessionId();
    for (QueueNode n : queue(key)) {
      if (!n.ownerTag().equals(tag) || !n.kind().equals(kind)) {
        continue;
      }
      String path = lockPath(key) + "/" + n.name();
      Stat stat = new Stat();
      try {
        byte[] data = curator.getData().storingStatIn(stat).forPath(path);
        if (stat.getEphemeralOwner() == session
            && owner.equals(new String(data, StandardCharsets.UTF_8))) {
          curator.delete().guaranteed().forPath(path);
        }
      } catch (KeeperException.NoNodeException gone) {
        // Already gone.
      }
    }
  }

  private List<QueueNode> queue(LockKey key) throws Exception {
    try {
      return LockNodes.queue(curator.getChildren().forPath(lockPath(key)), key.mode());
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  private static @Nullable QueueNode find(List<QueueNode> queue, String nodePath) {
    String name = nodePath.substring(nodePath.lastIndexOf('/') + 1);
    for (QueueNode n : queue) {
      if (n.name().equals(name)) {
        return n;
      }
    }
    return null;
  }

  /**
   * The node that {@code mine} must wait for (the nearest one), or null if it holds the lock. An
   * exclusive or write node waits for the nearest earlier node of another owner; a read node for
   * the nearest earlier write node of another owner. Nodes of the same owner (this or another
   * session) never block each other: that is reentrancy across clients.
   */
  private @Nullable QueueNode blockerOf(
      LockKey key, String owner, List<QueueNode> queue, QueueNode mine) throws Exception {
    int index = queue.indexOf(mine);
    for (int i = index - 1; i >= 0; i--) {
      QueueNode n = queue.get(i);
      if (key.mode() == LockMode.READ && !n.isWrite()) {
        continue;
      }
      if (!sameOwner(key, n, mine, owner)) {
        return n;
      }
    }
    return null;
  }

  private boolean sameOwner(LockKey key, QueueNode other, QueueNode mine, String owner)
      throws Exception {
    if (!other.ownerTag().equals(mine.ownerTag())) {
      return false;
    }
    try {
      byte[] data = curator.getData().forPath(lockPath(key) + "/" + other.name());
      return owner.equals(new String(data, StandardCharsets.UTF_8));
    } catch (KeeperException.NoNodeException e) {
      return true; // It left: it blocks nobody any more.
    }
  }

  private void deleteQuietly(String path) {
    try {
      curator.delete().guaranteed().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      // Already gone.
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      // Guaranteed delete keeps retrying in the background until the session ends.
      log.debug("Deleting lock node {} failed; Curator retries in the background", path, e);
    }
  }

  /** Runs {@code task} on the store's event thread, unless the store is closing. */
  private void fire(Runnable task) {
    try {
      events.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("Store closed; dropping an event", e);
    }
  }

  private long currentSessionId() {
    try {
      return curator.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      return 0;
    }
  }

  // Connection states reach the engine.

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
        long now = currentSessionId();
        long before = sessionId;
        sessionId = now;
        if (before != 0 && now != before) {
          sessionEnded("the ZooKeeper session expired; the client reconnected with a new one");
        } else if (state == ConnectionState.RECONNECTED) {
          rearmHoldWatches();
          listener.resumed();
        }
        break;
      default:
        break;
    }
  }

  /** Sets again the hold watches that could not be set while the connection was down. */
  private void rearmHoldWatches() {
    for (Slot slot : slots.values()) {
      Hold hold = slot.hold;
      if (hold != null) {
        hold.watch.armIfUnset();
      }
    }
  }

  private void sessionEnded(String reason) {
    // Holds of the old session are stale by now: live() compares their session with the current.
    log.warn("Lock holds on zookeeper ended: {}", reason);
    listener.sessionLost(reason);
  }

  // Queue attempts.

  /** An attempt that already holds (a nested hold granted at enqueue time). */
  private static final class GrantedAttempt implements QueuedAttempt {
    private final Acquisition acquisition;

    GrantedAttempt(Acquisition acquisition) {
      this.acquisition = acquisition;
    }

    @Override
    public Acquisition poll() {
      return acquisition;
    }

    @Override
    public void awaitChange(Runnable signal) {
      signal.run();
    }

    @Override
    public void close() {}
  }

  /** A place in a lock's queue: one ephemeral sequential node of this session. */
  private final class NodeAttempt implements QueuedAttempt {
    private final LockKey key;
    private final String owner;
    private final Created node;
    private final WatcherRemoveCuratorFramework watching;
    private final Watcher watcher;
    private volatile @Nullable Runnable signal;
    private @Nullable Acquisition acquired;
    private boolean done;

    // What the last look at the queue told, so that the next step does not ask the server again.
    // Guarded by this attempt's monitor.

    /** The node we wait for, as the enqueue's listing found it; null once used or if unknown. */
    private @Nullable String knownBlocker;

    /**
     * The queue as listed when nothing blocked our node, or null. This never goes stale: only nodes
     * that sort before ours can block it, and new nodes always sort after ours.
     */
    private @Nullable List<QueueNode> freeQueue;

    /** Whether awaitChange just found our blocker alive and set a watch that signals its end. */
    private boolean blockerWatched;

    NodeAttempt(LockKey key, String owner, Created node, @Nullable String knownBlocker) {
      this.key = key;
      this.owner = owner;
      this.node = node;
      this.knownBlocker = knownBlocker;
      this.watching = curator.newWatcherRemoveCuratorFramework();
      this.watcher =
          event -> {
            Runnable s = signal;
            if (s != null) {
              s.run();
            }
          };
    }

    @Override
    public synchronized Acquisition poll() {
      if (acquired != null) {
        return acquired;
      }
      checkPlace();
      if (!curator.getZookeeperClient().isConnected()) {
        return Acquisition.busy(); // Suspended: keep our place until the session is lost.
      }
      if (Thread.currentThread().isInterrupted()) {
        // The engine's wait throws InterruptedException next and closes the attempt.
        return Acquisition.busy();
      }
      if (blockerWatched) {
        // awaitChange saw our blocker alive just now and watches it: no need to ask again, the
        // watch signals when it leaves (or the connection changes).
        blockerWatched = false;
        return Acquisition.busy();
      }
      List<QueueNode> free = freeQueue;
      freeQueue = null;
      try {
        return pollQueue(free);
      } catch (LockStoreException e) {
        if (e.getCause() instanceof InterruptedException) {
          // Nothing was recorded (a grant records last): report busy, keep the interrupt, and let
          // the engine end the wait with InterruptedException and delete the node.
          return Acquisition.busy();
        }
        throw e;
      }
    }

    /**
     * Grants the lock if our node's turn has come. {@code free} is the queue as awaitChange listed
     * it when nothing blocked us (the hand-off then costs no second listing), or null to list it.
     */
    private Acquisition pollQueue(@Nullable List<QueueNode> free) {
      return withSlot(
          key,
          owner,
          "acquire",
          slot -> {
            List<QueueNode> queue = free;
            if (queue == null) {
              try {
                queue = queue(key);
              } catch (KeeperException.ConnectionLossException e) {
                return Acquisition.busy();
              }
            }
            QueueNode mine = find(queue, node.path());
            if (mine == null) {
              checkPlace();
              throw new LockStoreException(
                  "acquire of lock '"
                      + key.name()
                      + "': its queue node "
                      + node.path()
                      + " was deleted");
            }
            if (blockerOf(key, owner, queue, mine) != null) {
              return Acquisition.busy();
            }
            Acquisition result;
            Hold existing = live(slot);
            if (existing != null) {
              // The owner took the lock meanwhile through another call: nest, drop our node.
              existing.holds++;
              result = Acquisition.acquired(existing.token, existing.holds);
              deleteQuietly(node.path());
            } else {
              result = Acquisition.acquired(grant(slot, key, owner, node, queue).token, 1);
            }
            acquired = result;
            done = true;
            watching.removeWatchers();
            return result;
          });
    }

    private void checkPlace() {
      if (node.session() != currentSessionId()) {
        throw new LockStoreException(
            "acquire of lock '"
                + key.name()
                + "' failed: the ZooKeeper session ended while waiting, and its place in the queue"
                + " with it");
      }
    }

    @Override
    public synchronized void awaitChange(Runnable signal) {
      this.signal = signal;
      blockerWatched = false;
      freeQueue = null;
      if (!curator.getZookeeperClient().isConnected()) {
        return; // The engine polls again after its cap; watches come back with the session.
      }
      if (Thread.currentThread().isInterrupted()) {
        signal.run(); // Let the engine see the interrupt at once.
        return;
      }
      try {
        watchBlocker(signal);
      } catch (LockStoreException e) {
        if (e.getCause() instanceof InterruptedException) {
          signal.run();
          return;
        }
        throw e;
      }
    }

    /**
     * Round trips: one listing of the queue (none the first time, when the enqueue's listing named
     * our blocker), then, only if something blocks us, one exists-with-watch on that one node.
     */
    private void watchBlocker(Runnable signal) {
      call(
          "acquire",
          key,
          () -> {
            try {
              String blockerName = knownBlocker;
              knownBlocker = null;
              if (blockerName == null) {
                List<QueueNode> queue = queue(key);
                QueueNode mine = find(queue, node.path());
                if (mine == null) {
                  signal.run(); // Our node is gone: poll will tell.
                  return null;
                }
                QueueNode blocker = blockerOf(key, owner, queue, mine);
                if (blocker == null) {
                  freeQueue = queue; // Our turn: poll grants from this listing.
                  signal.run();
                  return null;
                }
                blockerName = blocker.name();
              }
              String path = lockPath(key) + "/" + blockerName;
              if (watching.checkExists().usingWatcher(watcher).forPath(path) == null) {
                signal.run(); // It left before the watch was set.
              } else {
                blockerWatched = true;
              }
            } catch (KeeperException.ConnectionLossException e) {
              // Poll again later; a watch set before the loss survives with the session.
            }
            return null;
          });
    }

    @Override
    public synchronized void close() {
      if (done) {
        return;
      }
      done = true;
      watching.removeWatchers();
      if (closed.get()) {
        return; // The store's session is gone or going, and the node with it.
      }
      // Also when the node's session has ended: the server may not have noticed yet, and its
      // protected name is unique, so deleting it can never touch anyone else's node.
      deleteQuietly(node.path());
    }
  }

  /** A watch on a lock's children that runs a callback on every change until closed. */
  private final class ReleaseWatch implements AutoCloseable, Watcher {
    private final String path;
    private final Runnable onRelease;
    private final WatcherRemoveCuratorFramework watching;
    private volatile boolean open = true;

    ReleaseWatch(String path, Runnable onRelease) {
      this.path = path;
      this.onRelease = onRelease;
      this.watching = curator.newWatcherRemoveCuratorFramework();
    }

    void arm() {
      if (!open || closed.get()) {
        return;
      }
      try {
        // exists() can watch a parent that is not there yet; getChildren() watches its queue.
        if (watching.checkExists().usingWatcher(this).forPath(path) != null) {
          watching.getChildren().usingWatcher(this).forPath(path);
        }
      } catch (KeeperException.NoNodeException e) {
        onRelease.run();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new LockStoreException("watching lock " + path + " failed on zookeeper: " + e, e);
      }
    }

    @Override
    public void process(org.apache.zookeeper.WatchedEvent event) {
      if (!open) {
        return;
      }
      onRelease.run();
      if (event.getType() != Event.EventType.None) {
        fire(this::rearmQuietly); // Watches fire once: set the next one off ZooKeeper's thread.
      }
    }

    private void rearmQuietly() {
      try {
        arm();
      } catch (RuntimeException e) {
        log.debug("Re-arming the release watch on {} failed; the engine polls instead", path, e);
      }
    }

    @Override
    public void close() {
      open = false;
      watching.removeWatchers();
    }
  }
}
