package dev.locksmith.zookeeper.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.zookeeper.internal.LockNodes.QueueNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLBackgroundPathAndBytesable;
import org.apache.curator.framework.api.BackgroundPathAndBytesable;
import org.apache.curator.framework.imps.CuratorFrameworkState;
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

  /** How often a wait for a background create checks that the Curator client is still open. */
  private static final long CLOSED_CHECK_MILLIS = 200;

  private final CuratorFramework curator;
  private final SessionWatch session;

  /** The path every lock's parent starts with: the base path or the key prefix's node, and "/". */
  private final String parentsPath;

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
    this.parentsPath = LockNodes.prefixPath(basePath, keyPrefix) + "/";
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

  /** The parent of {@code key}'s queue, laid out as {@link LockNodes} says. */
  public String path(LockKey key) {
    return parentsPath + LockNodes.encode(key.name());
  }

  /** The path of {@code node} in {@code key}'s queue. */
  public String path(LockKey key, QueueNode node) {
    return path(key) + "/" + node.name();
  }

  /**
   * A node just created at the end of a queue, and the listing of the queue sent behind the create
   * if it shows the node (null if it failed or does not, say because the create had to make the
   * lock's parent first).
   */
  public record Entry(OwnNode node, @Nullable List<QueueNode> listing) {}

  /**
   * Creates {@code owner}'s node at the end of {@code key}'s queue, creating the parents if needed,
   * and lists the queue in the same flight. One round trip while the lock's parent exists.
   *
   * <p>If the wait is interrupted, the node is deleted as soon as its create is answered, so an
   * attempt cut short leaves nothing in the queue.
   */
  public Entry enter(LockKey key, String owner) throws Exception {
    // When the parent does not exist, Curator creates the parents (containers) and creates again;
    // the server's container reaper may remove an empty parent between the two, so the parent is
    // re-created on each attempt.
    for (int attempt = 1; ; attempt++) {
      try {
        return enterOnce(key, owner);
      } catch (KeeperException.NoNodeException e) {
        if (attempt >= 10) {
          throw e;
        }
        log.debug("Parent of lock '{}' vanished during create; retrying", key, e);
      }
    }
  }

  private Entry enterOnce(LockKey key, String owner) throws Exception {
    session.awaitConnected();
    CompletableFuture<OwnNode> created = createInBackground(key, owner);
    // Sent without waiting for the create's answer: ZooKeeper answers one session's requests in
    // the order they were sent, so this listing already holds the new node, and the acquire costs
    // one round trip instead of two.
    List<QueueNode> listing;
    try {
      listing = list(key);
    } catch (InterruptedException e) {
      abandon(created);
      throw e;
    } catch (Exception e) {
      listing = null; // The caller lists again once the node exists.
      log.debug("Listing lock '{}' behind its create failed; listing again", key, e);
    }
    OwnNode node;
    try {
      node = awaitCreated(key, created);
    } catch (InterruptedException e) {
      abandon(created);
      throw e;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
    if (node.czxid() == 0) {
      // Curator answered a create that lost its connection by finding the node by its protection
      // prefix, which tells no stat: read it, or the hold would get fencing token 0.
      Stat stat = curator.checkExists().forPath(node.path());
      if (stat == null) {
        throw new LockStoreException(
            "acquire of lock '" + key.name() + "': the new node " + node.path() + " vanished");
      }
      node = new OwnNode(node.path(), stat.getCzxid(), stat.getEphemeralOwner());
    }
    return new Entry(node, listing != null && find(listing, node) != null ? listing : null);
  }

  /**
   * Waits for a background create's answer. Curator answers every background request, after its
   * retries, unless it is closed meanwhile; then nothing would, so the wait ends.
   */
  private OwnNode awaitCreated(LockKey key, CompletableFuture<OwnNode> created)
      throws InterruptedException, ExecutionException {
    while (true) {
      try {
        return created.get(CLOSED_CHECK_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (curator.getState() != CuratorFrameworkState.STARTED) {
          abandon(created);
          throw new LockStoreException(
              "acquire of lock '"
                  + key.name()
                  + "': the ZooKeeper client was closed while the lock's node was being created");
        }
      }
    }
  }

  private CompletableFuture<OwnNode> createInBackground(LockKey key, String owner)
      throws Exception {
    CompletableFuture<OwnNode> created = new CompletableFuture<>();
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
    BackgroundPathAndBytesable<String> create = acl == null ? node : node.withACL(acl, true);
    String path = path(key) + "/" + LockNodes.prefix(key.mode(), owner);
    create
        .inBackground(
            (client, event) -> {
              KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
              if (code == KeeperException.Code.OK) {
                Stat answered = event.getStat() != null ? event.getStat() : stat;
                created.complete(
                    new OwnNode(
                        event.getName(), answered.getCzxid(), answered.getEphemeralOwner()));
              } else {
                created.completeExceptionally(KeeperException.create(code, path));
              }
            })
        .forPath(path, owner.getBytes(StandardCharsets.UTF_8));
    return created;
  }

  /** Deletes the node of a create nobody waits for any more, once it is answered. */
  private void abandon(CompletableFuture<OwnNode> created) {
    created.thenAccept(node -> deleteInBackground(node.path()));
  }

  private void deleteInBackground(String path) {
    try {
      // Guaranteed: Curator keeps deleting until it succeeds or the session ends.
      curator.delete().guaranteed().inBackground().forPath(path);
    } catch (Exception e) {
      log.debug("Deleting abandoned lock node {} failed", path, e);
    }
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
   * Finds what {@code entry}'s node, just created, waits for, from the listing sent behind its
   * create or, if that did not show the node, from a new one.
   *
   * @throws LockStoreException if the node is not in the listing
   */
  public Look look(LockKey key, String owner, Entry entry) throws Exception {
    OwnNode node = entry.node();
    List<QueueNode> queue = entry.listing() != null ? entry.listing() : list(key);
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
