package dev.locksmith.zookeeper.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.zookeeper.internal.LockNodes.QueueNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLBackgroundPathAndBytesable;
import org.apache.curator.framework.api.PathAndBytesable;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queues of one store's locks in ZooKeeper, laid out as {@link LockNodes} says: creating an
 * attempt's ephemeral sequential node, listing a lock's queue, finding the node an attempt must
 * wait for, granting the lock to a node whose turn has come (with its fencing token), and deleting
 * nodes that no hold keeps.
 *
 * <p>Methods throw ZooKeeper's and Curator's exceptions as they come; a node or parent that is not
 * there ({@code NoNode}) is handled where it means "gone".
 */
public final class LockQueue {

  private static final Logger log = LoggerFactory.getLogger(LockQueue.class);

  private final CuratorFramework curator;
  private final SessionWatch session;
  private final String basePath;
  private final String keyPrefix;
  private final @Nullable List<ACL> acl;

  /**
   * The queues under {@code basePath}, for lock names with {@code keyPrefix} before them, whose
   * nodes carry {@code acl} (or the client's default ACL if null).
   */
  public LockQueue(
      CuratorFramework curator,
      SessionWatch session,
      String basePath,
      String keyPrefix,
      @Nullable List<ACL> acl) {
    this.curator = curator;
    this.session = session;
    this.basePath = basePath;
    this.keyPrefix = keyPrefix;
    this.acl = acl;
  }

  /**
   * A queue node this store created: its path, its creation zxid (the fencing token) and the
   * session that owns it (which tells whether the node is still alive for this store).
   */
  public record OwnNode(String path, long czxid, long session) {

    /** Whether {@code node} of a listing is this one. */
    public boolean is(QueueNode node) {
      return path.endsWith("/" + node.name());
    }
  }

  /** What one listing of a queue told an attempt: the queue and the node it must wait for. */
  public record Look(List<QueueNode> queue, @Nullable QueueNode blocker) {}

  CuratorFramework curator() {
    return curator;
  }

  SessionWatch session() {
    return session;
  }

  /** The parent of {@code key}'s queue. */
  public String path(LockKey key) {
    return basePath + "/" + LockNodes.encode(keyPrefix + key.name());
  }

  /** The path of {@code node} in {@code key}'s queue. */
  public String path(LockKey key, QueueNode node) {
    return path(key) + "/" + node.name();
  }

  /**
   * Creates {@code owner}'s node at the end of {@code key}'s queue, creating the parents if needed.
   * One round trip while the lock's parent exists.
   */
  public OwnNode create(LockKey key, String owner) throws Exception {
    // When the parent does not exist, Curator creates the parents (containers) and creates again;
    // the server's container reaper may remove an empty parent between the two, so the parent is
    // re-created on each attempt.
    for (int attempt = 1; ; attempt++) {
      try {
        return createOnce(key, owner);
      } catch (KeeperException.NoNodeException e) {
        if (attempt >= 10) {
          throw e;
        }
        log.debug("Parent of lock '{}' vanished during create; retrying", key, e);
      }
    }
  }

  private OwnNode createOnce(LockKey key, String owner) throws Exception {
    session.awaitConnected();
    Stat stat = new Stat();
    // Protection: if the connection drops after the server created the node, Curator finds it by
    // its GUID prefix instead of leaving an orphan that would block the queue.
    ACLBackgroundPathAndBytesable<String> node =
        curator
            .create()
            .storingStatIn(stat)
            .creatingParentContainersIfNeeded()
            .withProtection()
            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL);
    PathAndBytesable<String> create = acl == null ? node : node.withACL(acl, true);
    String created =
        create.forPath(
            path(key) + "/" + LockNodes.prefix(key.mode(), owner),
            owner.getBytes(StandardCharsets.UTF_8));
    return new OwnNode(created, stat.getCzxid(), stat.getEphemeralOwner());
  }

  /** {@code key}'s queue in order; empty if its parent does not exist. */
  public List<QueueNode> list(LockKey key) throws Exception {
    try {
      return LockNodes.queue(curator.getChildren().forPath(path(key)), key.mode());
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  /** {@code node} as listed in {@code queue}, or null if it is not there (any more). */
  public static @Nullable QueueNode find(List<QueueNode> queue, OwnNode node) {
    for (QueueNode n : queue) {
      if (node.is(n)) {
        return n;
      }
    }
    return null;
  }

  /**
   * Lists {@code key}'s queue once and finds what {@code node}, just created, waits for.
   *
   * @throws LockStoreException if the node is not in the listing
   */
  public Look look(LockKey key, String owner, OwnNode node) throws Exception {
    List<QueueNode> queue = list(key);
    QueueNode mine = find(queue, node);
    if (mine == null) {
      throw new LockStoreException(
          "acquire of lock '" + key.name() + "': the new node " + node.path() + " vanished");
    }
    return new Look(queue, blockerOf(key, owner, queue, mine));
  }

  /**
   * The node that {@code mine} must wait for (the nearest one), or null if it holds the lock. An
   * exclusive or write node waits for the nearest earlier node of another owner; a read node for
   * the nearest earlier write node of another owner. Nodes of the same owner (this or another
   * session) never block each other: that is reentrancy across clients.
   */
  public @Nullable QueueNode blockerOf(
      LockKey key, String owner, List<QueueNode> queue, QueueNode mine) throws Exception {
    for (int i = queue.indexOf(mine) - 1; i >= 0; i--) {
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
      return owner.equals(ownerOf(key, other));
    } catch (KeeperException.NoNodeException e) {
      return true; // It left: it blocks nobody any more.
    }
  }

  /**
   * The owner written in {@code node}.
   *
   * @throws KeeperException.NoNodeException if it is gone
   */
  public String ownerOf(LockKey key, QueueNode node) throws Exception {
    return new String(curator.getData().forPath(path(key, node)), StandardCharsets.UTF_8);
  }

  /**
   * Grants the lock to {@code node}, whose turn in {@code queue} has come: records the hold in
   * {@code slot} with the node's fencing token.
   */
  public Holds.Hold grant(Holds.Slot slot, LockKey key, OwnNode node, List<QueueNode> queue)
      throws Exception {
    return slot.grant(node, token(key, node, queue));
  }

  /**
   * The fencing token of {@code node}, whose turn in {@code queue} has come. A read hold takes the
   * last writer's token (kept in the parent's data) or the parent's {@code czxid}, so concurrent
   * readers share it; an exclusive or write hold takes its node's {@code czxid}, or that of the
   * same owner's earlier node (of another session) it shares the hold with; a write hold leaves its
   * token in the parent for the readers that follow.
   */
  private long token(LockKey key, OwnNode node, List<QueueNode> queue) throws Exception {
    if (key.mode() == LockMode.READ) {
      Stat stat = new Stat();
      byte[] data = curator.getData().storingStatIn(stat).forPath(path(key));
      long written =
          data != null && data.length == Long.BYTES ? ByteBuffer.wrap(data).getLong() : 0;
      return Math.max(written, stat.getCzxid());
    }
    long token = node.czxid();
    QueueNode first = queue.get(0);
    if (!node.is(first)) {
      Stat stat = curator.checkExists().forPath(path(key, first));
      if (stat == null) {
        throw new LockStoreException(
            "acquire of lock '" + key.name() + "': the queue changed while granting; retry");
      }
      token = stat.getCzxid();
    }
    if (key.mode() == LockMode.WRITE) {
      // Readers that follow this writer share its token: they must not see an older one.
      curator.setData().forPath(path(key), ByteBuffer.allocate(Long.BYTES).putLong(token).array());
    }
    return token;
  }

  /**
   * Deletes nodes that {@code owner} left in this session's queue for {@code key} without a hold
   * recorded: a create whose answer never arrived (cut short by an interrupt or a timeout) may have
   * made the node all the same. The engine releases such an attempt's owner, which is unique to the
   * attempt, so only that attempt's leftovers can match; other sessions' nodes are never touched.
   */
  public void removeOrphans(LockKey key, String owner) throws Exception {
    if (!session.isConnected()) {
      return;
    }
    String tag = LockNodes.ownerTag(owner);
    String kind = LockNodes.kindOf(key.mode());
    long current = session.id();
    for (QueueNode n : list(key)) {
      if (!n.ownerTag().equals(tag) || !n.kind().equals(kind)) {
        continue;
      }
      Stat stat = new Stat();
      try {
        byte[] data = curator.getData().storingStatIn(stat).forPath(path(key, n));
        if (stat.getEphemeralOwner() == current
            && owner.equals(new String(data, StandardCharsets.UTF_8))) {
          curator.delete().guaranteed().forPath(path(key, n));
        }
      } catch (KeeperException.NoNodeException gone) {
        // Already gone.
      }
    }
  }

  /**
   * Deletes the node at {@code path}, of this store's session, or leaves it to Curator: a
   * guaranteed delete keeps retrying in the background until it succeeds or the session ends. Never
   * throws, for clean-up paths that must not hide the failure they clean up after.
   */
  public void deleteQuietly(String path) {
    try {
      curator.delete().guaranteed().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      // Already gone.
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt(); // Swallowed here: the caller must still see it.
      }
      log.debug("Deleting lock node {} failed; Curator retries in the background", path, e);
    }
  }
}
