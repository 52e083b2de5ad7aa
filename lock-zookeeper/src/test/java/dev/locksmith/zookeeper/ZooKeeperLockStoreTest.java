package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LeaseLostListener;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.StoreFailure;
import dev.locksmith.tck.fixture.ClientCrash;
import dev.locksmith.tck.fixture.TcpProxy;
import dev.locksmith.zookeeper.fixture.ZooKeeperServers;
import dev.locksmith.zookeeper.internal.Holds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.curator.drivers.AdvancedTracerDriver;
import org.apache.curator.drivers.EventTrace;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The ZooKeeper store's own promises, on a real (in-process) ZooKeeper server. */
class ZooKeeperLockStoreTest {

  private static TestingServer server;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperServers.server();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    pool.shutdownNow();
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      try {
        c.close();
      } catch (Exception e) {
        // Best effort: some tests break their clients on purpose.
      }
    }
  }

  /** The session of most clients here: long enough to outlive a busy machine's pauses. */
  private static final Duration SESSION = Duration.ofSeconds(5);

  /**
   * The longest session the test server grants (20 ticks), for the tests whose clients must outlive
   * an outage of a connection timeout and more.
   */
  private static final Duration LONGEST_SESSION = Duration.ofMillis(20L * ZooKeeperServers.TICK_MS);

  /** How long a store operation waits for a connection: generous, for a loaded CI machine. */
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  /**
   * How soon a holder learns that its node was deleted: the store watches a held node after {@link
   * Holds#WATCH_DELAY} and the server pushes a watch event at once, so this is mostly slack for a
   * loaded 2-core machine.
   */
  private static final Duration PUSH_BOUND = Duration.ofSeconds(3);

  private String uri(String base) {
    return uri(base, SESSION);
  }

  private String uri(String base, Duration session) {
    return uri("", base, session);
  }

  private String uri(String credentials, String base, Duration session) {
    return "zookeeper://"
        + credentials
        + "127.0.0.1:"
        + server.getPort()
        + base
        + "?sessionTimeout="
        + session.toMillis()
        + "ms&connectionTimeout="
        + CONNECTION_TIMEOUT.toMillis()
        + "ms";
  }

  private LockClient client(String base) {
    return client(base, SESSION);
  }

  private LockClient client(String base, Duration session) {
    LockClient c = LockClient.open(uri(base, session));
    toClose.add(c);
    return c;
  }

  private CuratorFramework curator() throws Exception {
    CuratorFramework c = ZooKeeperServers.curator(server.getConnectString(), SESSION);
    toClose.add(c);
    return c;
  }

  @Test
  @DisplayName(
      "an acquire interrupted at any point of its ZooKeeper calls leaves no node that blocks the"
          + " lock")
  void interruptAnywhereLeavesNoOrphan() throws Exception {
    LockClient a = client("/t/interrupt");
    LockClient b = client("/t/interrupt");
    LockClient c = client("/t/interrupt");
    java.util.Random random = new java.util.Random(42);
    for (int round = 0; round < 100; round++) {
      String name = "i-" + round;
      Lease held = a.lock(name).acquire(Duration.ofSeconds(5));
      java.util.concurrent.CompletableFuture<Object> outcome =
          new java.util.concurrent.CompletableFuture<>();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  outcome.complete(b.lock(name).acquire(Duration.ofSeconds(30)));
                } catch (Throwable t) {
                  outcome.complete(t);
                }
              });
      waiter.start();
      // Land the interrupt anywhere from before the create to deep in the wait.
      java.util.concurrent.locks.LockSupport.parkNanos(random.nextInt(4_000_000));
      waiter.interrupt();
      held.release();
      Object result = outcome.get(10, java.util.concurrent.TimeUnit.SECONDS);
      if (result instanceof Lease) {
        ((Lease) result).release();
      } else {
        assertThat(result).isInstanceOf(InterruptedException.class);
      }
      assertThat(c.lock(name).tryAcquire(Duration.ofSeconds(2)))
          .as("the lock after round %d", round)
          .isPresent()
          .get()
          .satisfies(Lease::release);
    }
  }

  @Test
  @DisplayName("a lock excludes other clients, and the next holder's fencing token is greater")
  void excludesAndFences() throws Exception {
    LockClient a = client("/t/exclude");
    LockClient b = client("/t/exclude");
    assertThat(a.capabilities())
        .contains(
            Capability.FAIR_QUEUE,
            Capability.SESSION_BOUND,
            Capability.FENCING,
            Capability.READ_WRITE);

    Lease first = a.lock("orders/42").acquire(Duration.ofSeconds(5));
    assertThat(first.expiresAt()).isEqualTo(Instant.MAX);
    assertThat(b.lock("orders/42").tryAcquire()).isEmpty();
    assertThat(b.lock("orders/42").tryAcquire(Duration.ofMillis(200))).isEmpty();
    assertThat(b.lock("orders/42").isLocked()).isTrue();
    first.extend(Duration.ofSeconds(1)); // Session bound: only checks the hold.
    first.release();

    Lease second = b.lock("orders/42").acquire(Duration.ofSeconds(5));
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    second.release();
    assertThat(a.lock("orders/42").isLocked()).isFalse();
  }

  @Test
  @DisplayName("fencing tokens keep rising after the lock's parent node was deleted and re-created")
  void tokensSurviveParentRecreation() throws Exception {
    LockClient a = client("/t/fence");
    CuratorFramework admin = curator();
    long previous = 0;
    for (int i = 0; i < 5; i++) {
      Lease lease = a.lock("recreated").acquire(Duration.ofSeconds(5));
      assertThat(lease.fencingToken()).isGreaterThan(previous);
      previous = lease.fencingToken();
      lease.release();
      // The parent is a container: the server reaps it once empty (every 200 ms here), and the
      // sequence suffix restarts at 0 when the next acquire creates it again.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> admin.checkExists().forPath("/t/fence/recreated") == null);
    }
  }

  @Test
  @DisplayName(
      "the same owner re-enters with the same token, and the lock frees after the last release")
  void reentrant() throws Exception {
    LockClient a = client("/t/reenter");
    LockClient b = client("/t/reenter");
    DistributedLock mine = a.lock("r").withOwner("worker-1");
    Lease outer = mine.acquire(Duration.ofSeconds(5));
    Lease inner = mine.acquire(Duration.ofSeconds(5));
    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    inner.release();
    assertThat(b.lock("r").tryAcquire()).isEmpty();
    outer.release();
    Optional<Lease> other = b.lock("r").tryAcquire();
    assertThat(other).isPresent();
    other.get().release();
  }

  @Test
  @DisplayName(
      "the same owner id on another client (another session) shares the hold and its token; the"
          + " lock frees only after both release")
  void sameOwnerOtherSessionShares() throws Exception {
    LockClient a = client("/t/owner");
    LockClient b = client("/t/owner");
    LockClient c = client("/t/owner");
    Lease first = a.lock("o").withOwner("shared-id").acquire(Duration.ofSeconds(5));
    assertThat(c.lock("o").withOwner("other-id").tryAcquire()).isEmpty();
    Lease second = b.lock("o").withOwner("shared-id").tryAcquire().orElseThrow();
    assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
    first.release();
    assertThat(c.lock("o").tryAcquire()).isEmpty();
    second.release();
    Optional<Lease> after = c.lock("o").tryAcquire();
    assertThat(after).isPresent();
    assertThat(after.get().fencingToken()).isGreaterThan(first.fencingToken());
    after.get().release();
  }

  @Test
  @DisplayName("waiters are served in the order they queued (FIFO)")
  void fifo() throws Exception {
    LockClient holder = client("/t/fifo");
    CuratorFramework admin = curator();
    Lease lease = holder.lock("q").acquire(Duration.ofSeconds(5));
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    int n = 6;
    for (int i = 0; i < n; i++) {
      int id = i;
      LockClient c = client("/t/fifo");
      waiters.add(
          pool.submit(
              () -> {
                try (Lease l = c.lock("q").acquire(Duration.ofSeconds(30))) {
                  order.add(id);
                  Thread.sleep(20); // Hold briefly so that a barging waiter would show.
                }
                return null;
              }));
      // Queue strictly one after another: wait until this waiter's node is in the queue.
      int expected = i + 2;
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> admin.getChildren().forPath("/t/fifo/q").size() == expected);
    }
    lease.release();
    for (Future<?> f : waiters) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  @DisplayName("many clients contending never hold one lock at the same time")
  void mutualExclusionUnderContention() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicInteger entries = new AtomicInteger();
    List<Long> tokens = new CopyOnWriteArrayList<>();
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      LockClient c = client("/t/contend");
      workers.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 15; i++) {
                  boolean queued = i % 2 == 0;
                  Optional<Lease> maybe =
                      queued
                          ? Optional.of(c.lock("hot").acquire(Duration.ofSeconds(30)))
                          : c.lock("hot").tryAcquire();
                  if (maybe.isEmpty()) {
                    continue;
                  }
                  try (Lease l = maybe.get()) {
                    int now = inside.incrementAndGet();
                    maxInside.accumulateAndGet(now, Math::max);
                    tokens.add(l.fencingToken());
                    entries.incrementAndGet();
                    inside.decrementAndGet();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : workers) {
      f.get(90, TimeUnit.SECONDS);
    }
    assertThat(maxInside.get()).isEqualTo(1);
    assertThat(entries.get()).isGreaterThanOrEqualTo(6 * 8);
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
  }

  @Test
  @DisplayName("readers share, a writer excludes them, and a queued writer keeps new readers out")
  void readWrite() throws Exception {
    LockClient a = client("/t/rw");
    LockClient b = client("/t/rw");
    LockClient c = client("/t/rw");
    CuratorFramework admin = curator();
    DistributedReadWriteLock rwA = a.readWriteLock("doc");
    DistributedReadWriteLock rwB = b.readWriteLock("doc");
    DistributedReadWriteLock rwC = c.readWriteLock("doc");

    Lease r1 = rwA.readLock().acquire(Duration.ofSeconds(5));
    Lease r2 = rwB.readLock().acquire(Duration.ofSeconds(5));
    assertThat(r2.fencingToken()).isEqualTo(r1.fencingToken());
    assertThat(rwC.writeLock().tryAcquire()).isEmpty();

    // A writer queues behind the readers; a reader arriving after it must wait for it.
    Future<Long> writer =
        pool.submit(
            () -> {
              try (Lease w = rwC.writeLock().acquire(Duration.ofSeconds(30))) {
                return w.fencingToken();
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.getChildren().forPath("/t/rw/doc").size() == 3);
    assertThat(rwA.readLock().withOwner("late-reader").tryAcquire()).isEmpty();
    // The exclusive lock of the same name is independent.
    Optional<Lease> exclusive = a.lock("doc").tryAcquire();
    assertThat(exclusive).isPresent();
    exclusive.get().release();

    r1.release();
    r2.release();
    long writerToken = writer.get(30, TimeUnit.SECONDS);
    assertThat(writerToken).isGreaterThan(r1.fencingToken());
    // Readers after the writer share a token at least the writer's (the last writer's token, or
    // the czxid of the lock's parent if it was removed when empty and created again since).
    Lease r3 = rwA.readLock().acquire(Duration.ofSeconds(5));
    Lease r4 = rwB.readLock().acquire(Duration.ofSeconds(5));
    assertThat(r3.fencingToken()).isGreaterThanOrEqualTo(writerToken);
    assertThat(r4.fencingToken()).isEqualTo(r3.fencingToken());
    Future<Long> nextWriter =
        pool.submit(
            () -> {
              try (Lease w = rwC.writeLock().acquire(Duration.ofSeconds(30))) {
                return w.fencingToken();
              }
            });
    r3.release();
    r4.release();
    assertThat(nextWriter.get(30, TimeUnit.SECONDS)).isGreaterThan(r3.fencingToken());
  }

  @Test
  @DisplayName("no nodes remain after release (parents are containers, removed when empty)")
  void cleansUp() throws Exception {
    LockClient a = client("/t/clean");
    CuratorFramework admin = curator();
    for (int i = 0; i < 20; i++) {
      a.lock("name-" + i).acquire(Duration.ofSeconds(5)).release();
      try (Lease r = a.readWriteLock("rw-" + i).readLock().acquire(Duration.ofSeconds(5))) {
        assertThat(r.isValid()).isTrue();
      }
    }
    assertThat(a.lock("busy").tryAcquire()).isPresent().get().satisfies(Lease::release);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                admin.checkExists().forPath("/t/clean") == null
                    || admin.getChildren().forPath("/t/clean").isEmpty());
  }

  /** The latency {@link #acquireWaitsOneRoundTrip} puts on the server's answers. */
  private static final Duration LATENCY = Duration.ofMillis(400);

  @Test
  @DisplayName(
      "an uncontended acquire waits for one round trip: the queue's listing is sent with the"
          + " create, not after its answer")
  void acquireWaitsOneRoundTrip() throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.getPort())) {
      // A persistent parent, which the server's reaper leaves alone while the queue is empty.
      curator().create().creatingParentsIfNeeded().forPath("/t/latency/n");
      LockClient a = clientVia(proxy, "/t/latency");
      a.lock("n").acquire(Duration.ofSeconds(5)).release();
      proxy.delayReplies(LATENCY);
      // The best of three: a machine stalled for a whole latency in every attempt is not this test.
      Duration best = null;
      for (int i = 0; i < 3; i++) {
        long start = System.nanoTime();
        Lease held = a.lock("n").acquire(Duration.ofSeconds(10));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        held.release();
        best = best == null || took.compareTo(best) < 0 ? took : best;
      }
      assertThat(best)
          .as("the fastest of three acquires with %s of latency on each answer", LATENCY)
          .isGreaterThanOrEqualTo(LATENCY)
          .isLessThan(LATENCY.multipliedBy(2));
    }
  }

  @Test
  @DisplayName(
      "a create whose answer is lost with the connection still gives the hold its node's czxid as"
          + " fencing token (Curator finds the node again by its protection prefix, without a stat)")
  void lostCreateAnswerKeepsTheToken() throws Exception {
    CuratorFramework admin = curator();
    admin.create().creatingParentsIfNeeded().forPath("/t/lost-answer/n");
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.getPort())) {
      LockClient a = clientVia(proxy, "/t/lost-answer");
      a.lock("warm").acquire(Duration.ofSeconds(5)).release();
      // Answers held back long enough to see the node made on the server, then dropped with the
      // connection: the client never hears that its create succeeded.
      proxy.delayReplies(Duration.ofSeconds(3));
      Future<Lease> acquiring = pool.submit(() -> a.lock("n").acquire(Duration.ofSeconds(20)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !admin.getChildren().forPath("/t/lost-answer/n").isEmpty());
      proxy.delayReplies(Duration.ZERO);
      proxy.dropConnections();

      Lease held = acquiring.get(20, TimeUnit.SECONDS);
      List<String> nodes = admin.getChildren().forPath("/t/lost-answer/n");
      assertThat(nodes).as("the queue: one node, found again, none left behind").hasSize(1);
      long czxid = admin.checkExists().forPath("/t/lost-answer/n/" + nodes.get(0)).getCzxid();
      assertThat(held.fencingToken()).as("the hold's fencing token").isEqualTo(czxid);
      held.release();
    }
  }

  /** A client at {@code base} that reaches the server through {@code proxy}. */
  private LockClient clientVia(TcpProxy proxy, String base) {
    String direct = uri(base);
    LockClient c =
        LockClient.open(
            direct.replace(
                "127.0.0.1:" + server.getPort() + "/", "127.0.0.1:" + proxy.port() + "/"));
    toClose.add(c);
    return c;
  }

  @Test
  @DisplayName(
      "an uncontended acquire+release costs three requests, as Curator's mutex does: create,"
          + " getChildren and delete (a hold that short is not watched)")
  void fewestRoundTrips() throws Exception {
    // A persistent parent: the server's reaper would remove an empty container between rounds,
    // and a round that re-creates it makes more requests.
    curator().create().creatingParentsIfNeeded().forPath("/t/trips/n");
    CuratorFramework mine = curator();
    LockClient a = clientOn(mine, "/t/trips");
    a.lock("n").acquire(Duration.ofSeconds(5)).release();
    List<String> operations = new CopyOnWriteArrayList<>();
    traceOperations(mine, trace -> operations.add(trace.getName()));
    // The create is sent in the background and the listing right behind it; which of the two is
    // traced first depends on the threads that handle their answers, so they are compared sorted.
    List<String> waitedFor =
        List.of(
            "CreateBuilderImpl-Background",
            "DeleteBuilderImpl-Foreground",
            "GetChildrenBuilderImpl-Foreground");
    for (int i = 0; i < 3; i++) {
      // A waiting acquire (through the queue) and a non-blocking one cost the same.
      long start = System.nanoTime();
      a.lock("n").acquire(Duration.ofSeconds(5)).release();
      assertTrips(mine, operations, waitedFor, start, "acquire(wait) + release");
      start = System.nanoTime();
      a.lock("n").tryAcquire().orElseThrow().release();
      assertTrips(mine, operations, waitedFor, start, "tryAcquire() + release");
    }
  }

  @Test
  @DisplayName(
      "a hand-off from the first node to the waiter right behind it lists no queue: the deletion"
          + " the waiter watched makes its node first, and it is granted on that event alone")
  void handOffListsNoQueue() throws Exception {
    List<String> operations = new CopyOnWriteArrayList<>();
    LockClient waiting = tracedClient("/t/hand-off", operations);
    LockClient holding = client("/t/hand-off");
    for (int round = 0; round < 3; round++) {
      Lease held = holding.lock("h").acquire(Duration.ofSeconds(5));
      operations.clear();
      Future<Lease> waiter = waitingBehind(waiting, "h", operations);
      operations.clear();

      held.release();
      Lease handedOver = waiter.get(10, TimeUnit.SECONDS);

      assertThat(operations)
          .as("requests of the waiter's client from the release to its hold (round %d)", round)
          .doesNotContain("GetChildrenBuilderImpl-Foreground");
      assertThat(handedOver.isValid()).isTrue();
      handedOver.release();
    }
  }

  @Test
  @DisplayName(
      "a waiter right behind the holder whose own node someone else deletes, just before the"
          + " holder's, never holds: its acquire fails naming its deleted node")
  void waiterWhoseNodeIsDeletedNeverHolds() throws Exception {
    List<String> operations = new CopyOnWriteArrayList<>();
    LockClient waiting = tracedClient("/t/waiter-deleted", operations);
    LockClient holding = client("/t/waiter-deleted");
    CuratorFramework admin = curator();
    holding.lock("d").acquire(Duration.ofSeconds(5));
    Future<Lease> waiter = waitingBehind(waiting, "d", operations);
    String queue = "/t/waiter-deleted/d";
    List<String> nodes = new ArrayList<>(admin.getChildren().forPath(queue));
    assertThat(nodes).as("the queue").hasSize(2);
    // The holder's node has the lower sequence number (the last ten digits of the name).
    nodes.sort(Comparator.comparing((String n) -> n.substring(n.length() - 10)));

    // One transaction: the waiter hears both deletions back to back, its own first.
    admin
        .transaction()
        .forOperations(
            admin.transactionOp().delete().forPath(queue + "/" + nodes.get(1)),
            admin.transactionOp().delete().forPath(queue + "/" + nodes.get(0)));

    assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
        .as("the waiter whose node was deleted")
        .isInstanceOf(ExecutionException.class)
        .rootCause()
        .hasMessageContaining("was deleted");
  }

  /** The exists with which a waiter watches the node it waits for. */
  private static final String BLOCKER_WATCH_REQUEST = "ExistsBuilderImpl-Foreground";

  /** A client at {@code base} whose requests are added to {@code operations} as they complete. */
  private LockClient tracedClient(String base, List<String> operations) throws Exception {
    CuratorFramework traced = curator();
    traceOperations(traced, trace -> operations.add(trace.getName()));
    return clientOn(traced, base);
  }

  /**
   * {@code waiting}'s acquire of {@code name}, which another client holds, once it watches the
   * holder's node ({@code operations} are its client's requests).
   */
  private Future<Lease> waitingBehind(LockClient waiting, String name, List<String> operations) {
    Future<Lease> waiter = pool.submit(() -> waiting.lock(name).acquire(Duration.ofSeconds(30)));
    await().atMost(Duration.ofSeconds(10)).until(() -> operations.contains(BLOCKER_WATCH_REQUEST));
    return waiter;
  }

  @Test
  @DisplayName(
      "a hold that lasts is watched with one exists, no sooner than the watch delay after it was"
          + " granted; deleting its node then reaches the holder through the watch")
  void lastingHoldIsWatched() throws Exception {
    CuratorFramework mine = curator();
    LockClient a = clientOn(mine, "/t/watched");
    CuratorFramework admin = curator();
    List<WatchRequest> watches = watchRequests(mine);
    long beforeAcquire = System.nanoTime();
    Lease held = a.lock("w").acquire(Duration.ofSeconds(5));
    CountDownLatch lost = new CountDownLatch(1);
    held.onLost((l, why) -> lost.countDown());
    await().atMost(Holds.WATCH_DELAY.plus(PUSH_BOUND)).until(() -> !watches.isEmpty());
    assertThat(Duration.ofNanos(watches.get(0).answeredAt() - beforeAcquire))
        .as("time from the acquire to the watch on its node")
        .isGreaterThanOrEqualTo(Holds.WATCH_DELAY);
    assertThat(watches.get(0).returnCode()).isEqualTo(KeeperException.Code.OK.intValue());

    String node = admin.getChildren().forPath("/t/watched/w").get(0);
    admin.delete().forPath("/t/watched/w/" + node);
    assertThat(lost.await(PUSH_BOUND.toMillis(), TimeUnit.MILLISECONDS))
        .as("the holder was told its node was deleted")
        .isTrue();
    assertThat(watches).as("exists requests on the held node").hasSize(1);
    assertThat(held.isValid()).isFalse();
  }

  @Test
  @DisplayName(
      "a node deleted before its hold is watched is found missing by the watch's exists, and the"
          + " holder is told")
  void nodeDeletedBeforeTheWatchIsReported() throws Exception {
    CuratorFramework mine = curator();
    LockClient a = clientOn(mine, "/t/early");
    CuratorFramework admin = curator();
    List<WatchRequest> watches = watchRequests(mine);
    int noNode = KeeperException.Code.NONODE.intValue();
    // The deletion follows the acquire by a round trip, far inside the watch delay; only a machine
    // stalled past that delay sets the watch first, so a few attempts make the order certain.
    for (int attempt = 0;
        attempt < 5 && watches.stream().noneMatch(w -> w.returnCode() == noNode);
        attempt++) {
      watches.clear();
      String name = "e" + attempt;
      Lease held = a.lock(name).acquire(Duration.ofSeconds(5));
      CountDownLatch lost = new CountDownLatch(1);
      held.onLost((l, why) -> lost.countDown());
      String queue = "/t/early/" + name;
      admin.delete().forPath(queue + "/" + admin.getChildren().forPath(queue).get(0));

      assertThat(lost.await(PUSH_BOUND.toMillis(), TimeUnit.MILLISECONDS))
          .as("the holder was told its node was deleted")
          .isTrue();
      assertThat(held.isValid()).isFalse();
      await().atMost(PUSH_BOUND).until(() -> !watches.isEmpty());
    }
    assertThat(watches)
        .extracting(WatchRequest::returnCode)
        .as("answers to the watch's exists")
        .containsExactly(noNode);
  }

  private static final String WATCH_REQUEST = "ExistsBuilderImpl-Background";

  /** A client on a store over {@code curator} (whose requests a test traces) at {@code base}. */
  private LockClient clientOn(CuratorFramework curator, String base) {
    LockClient c = LockClient.of(new ZooKeeperLockStore(curator, base), LockOptions.defaults());
    toClose.add(c);
    return c;
  }

  /** An {@code exists} that set a hold's watch: when its answer came, and the answer's code. */
  private record WatchRequest(long answeredAt, int returnCode) {}

  /** The hold-watch requests {@code curator} completes from now on, in the order answered. */
  private static List<WatchRequest> watchRequests(CuratorFramework curator) {
    List<WatchRequest> made = new CopyOnWriteArrayList<>();
    traceOperations(
        curator,
        trace -> {
          if (trace.getName().equals(WATCH_REQUEST)) {
            made.add(new WatchRequest(System.nanoTime(), trace.getReturnCode()));
          }
        });
    return made;
  }

  /** Passes every request {@code curator} completes to {@code onOperation}. */
  private static void traceOperations(
      CuratorFramework curator, Consumer<OperationTrace> onOperation) {
    curator
        .getZookeeperClient()
        .setTracerDriver(
            new AdvancedTracerDriver() {
              @Override
              public void addTrace(OperationTrace trace) {
                onOperation.accept(trace);
              }

              @Override
              public void addEvent(EventTrace trace) {}
            });
  }

  /**
   * Asserts that {@code operations} are exactly the {@code waitedFor} calls (sorted by name), also
   * once every background request sent before has been answered; then clears them. If the machine
   * was so slow that the hold may have lasted the watch delay since {@code start}, the watch's
   * {@code exists} is allowed too.
   */
  private static void assertTrips(
      CuratorFramework curator,
      List<String> operations,
      List<String> waitedFor,
      long start,
      String what)
      throws Exception {
    boolean mayHaveLasted =
        Duration.ofNanos(System.nanoTime() - start).compareTo(Holds.WATCH_DELAY) >= 0;
    // Answers and their callbacks come in request order: once this marker's callback ran, a
    // background request of the acquire or release (a watch, say) would have been traced too.
    String marker = "GetDataBuilderImpl-Background";
    CountDownLatch answered = new CountDownLatch(1);
    curator.getData().inBackground((c, event) -> answered.countDown()).forPath("/");
    assertThat(answered.await(PUSH_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    await().atMost(PUSH_BOUND).until(() -> operations.contains(marker));
    List<String> made = new ArrayList<>(operations);
    made.remove(marker);
    if (mayHaveLasted) {
      made.remove(WATCH_REQUEST);
    }
    made.sort(null);
    assertThat(made).as(what).isEqualTo(waitedFor);
    operations.clear();
  }

  @Test
  @DisplayName("names are data: slashes, dots and unicode become one encoded path component")
  void namesAreData() throws Exception {
    LockClient a = client("/t/names");
    LockClient b = client("/t/names");
    for (String name : List.of("..", "a/../../b", "zookeeper", "ü€😀", "x y%z")) {
      Lease l = a.lock(name).acquire(Duration.ofSeconds(5));
      assertThat(b.lock(name).tryAcquire()).as(name).isEmpty();
      l.release();
    }
  }

  @Test
  @DisplayName(
      "(key prefix, name) pairs that concatenate to the same string never share a lock; the key"
          + " prefix is a path component of its own, marked so that no lock name can equal it")
  void prefixesNeverCollide() throws Exception {
    String[][] pairs = {
      {"a", "bc", "ab", "c"},
      {"p/", "x/lock/y", "p/lock/x/", "y"},
      {"", "x:foo", "x:", "foo"},
      {"p:", "x:lock:y", "p:lock:x:", "y"},
      {"", "a+", "a", "+"},
      {"x", "y", "", "x+/y"},
    };
    CuratorFramework admin = curator();
    for (String[] pair : pairs) {
      String name = pair[1];
      String otherName = pair[3];
      LockClient one = prefixed(pair[0]);
      LockClient two = prefixed(pair[2]);
      Lease held = one.lock(name).acquire(Duration.ofSeconds(5));
      assertThat(two.lock(otherName).tryAcquire())
          .as("(%s, %s) while (%s, %s) is held", pair[2], otherName, pair[0], name)
          .isPresent()
          .get()
          .satisfies(Lease::release);
      assertThat(two.lock(otherName).isLocked()).isFalse();
      held.release();
    }
    // An empty prefix keeps the layout it always had; a prefix gets a node of its own.
    LockClient plain = prefixed("");
    LockClient prefixed = prefixed("app-1/");
    Lease a = plain.lock("n").acquire(Duration.ofSeconds(5));
    Lease b = prefixed.lock("n").acquire(Duration.ofSeconds(5));
    assertThat(admin.getChildren().forPath("/t/prefix/n")).hasSize(1);
    assertThat(admin.getChildren().forPath("/t/prefix/app-1%2F+/n")).hasSize(1);
    a.release();
    b.release();
  }

  private LockClient prefixed(String keyPrefix) {
    LockClient c =
        LockClient.open(uri("/t/prefix"), LockOptions.builder().keyPrefix(keyPrefix).build());
    toClose.add(c);
    return c;
  }

  @Test
  @DisplayName("session expiry tells the holder (onLost) and the next waiter acquires")
  void sessionExpiry() throws Exception {
    CuratorFramework holderCurator = curator();
    LockClient holder =
        LockClient.of(new ZooKeeperLockStore(holderCurator, "/t/expiry"), LockOptions.defaults());
    toClose.add(holder);
    LockClient waiter = client("/t/expiry");

    Lease lease = holder.lock("e").acquire(Duration.ofSeconds(5));
    List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
    lease.onLost((l, reason) -> lost.add(reason));
    Future<Lease> next = pool.submit(() -> waiter.lock("e").acquire(Duration.ofSeconds(30)));

    ZooKeeperServers.expireSession(holderCurator, server.getConnectString());

    await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
    assertThat(lease.isValid()).isFalse();
    Lease taken = next.get(15, TimeUnit.SECONDS);
    assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
    taken.release();
    // The holder's client works again on its new session.
    holder.lock("e").acquire(Duration.ofSeconds(5)).release();
  }

  @Test
  @DisplayName("a suspended connection makes the lease invalid until it resumes within the session")
  void suspendAndResume() throws Exception {
    // The outage below lasts one connection timeout (the failing tryAcquire) and a restart: the
    // session must outlive it for the lease to resume rather than be lost.
    LockClient a = client("/t/suspend", LONGEST_SESSION);
    Lease lease = a.lock("s").acquire(Duration.ofSeconds(5));
    List<String> events = new CopyOnWriteArrayList<>();
    lease.onLost(
        new LeaseLostListener() {
          @Override
          public void leaseLost(Lease l, LeaseLostException reason) {
            events.add("lost");
          }

          @Override
          public void leaseSuspended(Lease l) {
            events.add("suspended");
          }

          @Override
          public void leaseResumed(Lease l) {
            events.add("resumed");
          }
        });
    server.stop();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("suspended"));
      assertThat(lease.isValid()).isFalse();
      // While the store is down, new attempts fail cleanly instead of pretending, and say why.
      assertThatThrownBy(() -> a.lock("other").tryAcquire())
          .isInstanceOf(LockStoreException.class)
          .hasMessageContaining("'other'")
          .hasMessageContaining(StoreFailure.UNAVAILABLE.description())
          .hasMessageContaining("127.0.0.1:" + server.getPort());
    } finally {
      server.restart();
      ZooKeeperServers.awaitServing(server);
    }
    // Serving again: the client reconnects within its backoff (a second or so) plus slack.
    await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("resumed"));
    assertThat(events).doesNotContain("lost");
    assertThat(lease.isValid()).isTrue();
    lease.release();
    a.lock("other").acquire(Duration.ofSeconds(5)).release();
  }

  @Test
  @DisplayName("a digest identity's lock nodes cannot be deleted or taken by another identity")
  void digestAcl() throws Exception {
    String base = "/acl-test";
    LockClient alice = LockClient.open(uri("alice:s3cret@", base, SESSION));
    toClose.add(alice);
    Lease lease = alice.lock("vault").acquire(Duration.ofSeconds(5));

    CuratorFramework anonymous = curator();
    String parent = base + "/vault";
    List<String> nodes = anonymous.getChildren().forPath(parent);
    assertThat(nodes).hasSize(1);
    String node = parent + "/" + nodes.get(0);
    assertThatThrownBy(() -> anonymous.delete().forPath(node))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> anonymous.setData().forPath(node, new byte[0]))
        .isInstanceOf(KeeperException.NoAuthException.class);

    LockClient mallory = LockClient.open(uri("mallory:guess@", base, SESSION));
    toClose.add(mallory);
    assertThatThrownBy(() -> mallory.lock("vault").tryAcquire())
        .isInstanceOf(LockStoreException.class)
        .hasMessageContaining("'vault'")
        .hasMessageContaining(StoreFailure.REFUSED.description())
        .hasMessageContaining("NoAuth for " + parent)
        .hasRootCauseInstanceOf(KeeperException.NoAuthException.class);
    // Others may still see that it is locked (world read).
    assertThat(mallory.lock("vault").isLocked()).isTrue();
    assertThat(lease.isValid()).isTrue();
    assertThat(anonymous.getACL().forPath(node))
        .anySatisfy(acl -> assertThat(acl.getId().getScheme()).isEqualTo("digest"))
        .anySatisfy(acl -> assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.READ));
    lease.release();
  }

  @Test
  @DisplayName(
      "a store built on the caller's Curator client deletes its nodes on close, not the client")
  void borrowedCurator() throws Exception {
    CuratorFramework mine = curator();
    LockClient a =
        LockClient.of(new ZooKeeperLockStore(mine, "/t/borrowed"), LockOptions.defaults());
    Lease lease = a.lock("b").acquire(Duration.ofSeconds(5));
    assertThat(mine.getChildren().forPath("/t/borrowed/b")).hasSize(1);
    a.close();
    assertThat(lease.isValid()).isFalse();
    assertThat(mine.getZookeeperClient().isConnected()).isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> mine.checkExists().forPath("/t/borrowed/b") == null);
  }

  @Test
  @DisplayName("a crashed client's locks free at once: closing Curator ends the session")
  void crashFreesLocks() throws Exception {
    // With the longest session, a lock freed only by the session's expiry would come too late.
    LockClient a = client("/t/crash", LONGEST_SESSION);
    LockClient b = client("/t/crash");
    a.lock("c").acquire(Duration.ofSeconds(5));
    ClientCrash.crash(a);
    Lease l = b.lock("c").acquire(LONGEST_SESSION.dividedBy(2));
    l.release();
  }

  @Test
  @DisplayName("an interrupted waiter leaves the queue and no node behind")
  void interruptedWaiterLeavesQueue() throws Exception {
    LockClient a = client("/t/interrupt");
    LockClient b = client("/t/interrupt");
    CuratorFramework admin = curator();
    Lease held = a.lock("i").acquire(Duration.ofSeconds(5));
    Future<?> waiter = pool.submit(() -> b.lock("i").acquire(Duration.ofSeconds(60)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.getChildren().forPath("/t/interrupt/i").size() == 2);
    waiter.cancel(true);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.getChildren().forPath("/t/interrupt/i").size() == 1);
    held.release();
  }

  /** Deletes every node of the lock at {@code lockPath}, as an operator with zkCli would. */
  private static void deleteChildren(CuratorFramework admin, String lockPath) throws Exception {
    List<String> children = admin.getChildren().forPath(lockPath);
    assertThat(children).as("nodes under %s", lockPath).isNotEmpty();
    for (String child : children) {
      admin.delete().forPath(lockPath + "/" + child);
    }
  }

  @Test
  @DisplayName(
      "a holder whose lock node someone else deletes is told at once (onLost, no longer valid),"
          + " for exclusive, nested, read and write holds, and another client can then acquire")
  void deletedNodeIsReported() throws Exception {
    LockClient a = client("/t/deleted");
    LockClient b = client("/t/deleted");
    CuratorFramework admin = curator();
    DistributedLock exclusive = a.lock("x").withOwner("worker-1");
    Lease outer = exclusive.acquire(Duration.ofSeconds(5));
    Lease inner = exclusive.acquire(Duration.ofSeconds(5)); // Nested: the same node, two holds.
    Lease read = a.readWriteLock("r").readLock().acquire(Duration.ofSeconds(5));
    Lease write = a.readWriteLock("w").writeLock().acquire(Duration.ofSeconds(5));
    List<Lease> leases = List.of(outer, inner, read, write);
    List<Lease> lost = new CopyOnWriteArrayList<>();
    for (Lease lease : leases) {
      lease.onLost((l, why) -> lost.add(l));
    }

    for (String lock : List.of("x", "r", "w")) {
      deleteChildren(admin, "/t/deleted/" + lock);
    }
    long deleted = System.nanoTime();
    await().atMost(PUSH_BOUND).until(() -> lost.size() >= leases.size());
    assertThat(Duration.ofNanos(System.nanoTime() - deleted)).isLessThanOrEqualTo(PUSH_BOUND);
    assertThat(lost).containsExactlyInAnyOrderElementsOf(leases);
    for (Lease lease : leases) {
      assertThat(lease.isValid()).as("%s after its node was deleted", lease.name()).isFalse();
    }
    assertThatThrownBy(write::release).isInstanceOf(LeaseLostException.class);

    // Only one valid lease at a time: the other client takes each lock at once.
    assertThat(b.lock("x").tryAcquire()).isPresent().get().satisfies(Lease::release);
    assertThat(b.readWriteLock("r").writeLock().tryAcquire())
        .isPresent()
        .get()
        .satisfies(Lease::release);
    assertThat(b.readWriteLock("w").writeLock().tryAcquire())
        .isPresent()
        .get()
        .satisfies(Lease::release);
  }

  @Test
  @DisplayName(
      "a holder whose node is deleted after another client queued behind it is told at once, and"
          + " the waiter gets the lock")
  void deletedNodeIsReportedAfterTheQueueChanged() throws Exception {
    // Deleting only the holder's node, with a waiter behind it, must still reach the holder.
    LockClient a = client("/t/deleted-queued");
    LockClient b = client("/t/deleted-queued");
    CuratorFramework admin = curator();
    Lease held = a.lock("q").acquire(Duration.ofSeconds(5));
    CountDownLatch lost = new CountDownLatch(1);
    held.onLost((l, why) -> lost.countDown());
    Future<Lease> waiter = pool.submit(() -> b.lock("q").acquire(Duration.ofSeconds(30)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.getChildren().forPath("/t/deleted-queued/q").size() == 2);

    List<String> queue = admin.getChildren().forPath("/t/deleted-queued/q");
    // The holder's node has the lower sequence number (the last ten digits of the name).
    String first =
        queue.stream()
            .min(Comparator.comparing((String n) -> n.substring(n.length() - 10)))
            .orElseThrow();
    admin.delete().forPath("/t/deleted-queued/q/" + first);

    assertThat(lost.await(PUSH_BOUND.toMillis(), TimeUnit.MILLISECONDS))
        .as("the holder was told its node was deleted")
        .isTrue();
    assertThat(held.isValid()).isFalse();
    waiter.get(10, TimeUnit.SECONDS).release();
  }

  @Test
  @DisplayName(
      "the store's own release, nested release and extend are never reported as a lost hold")
  void ownDeletesAreNotLosses() throws Exception {
    CuratorFramework admin = curator();
    ZooKeeperLockStore store = new ZooKeeperLockStore(curator(), "/t/own");
    toClose.add(store);
    List<String> lost = new CopyOnWriteArrayList<>();
    store
        .sessionEvents()
        .orElseThrow()
        .listen(
            new dev.locksmith.spi.StoreListener() {
              @Override
              public void holdLost(
                  dev.locksmith.spi.LockKey key, String owner, long token, String reason) {
                lost.add(key.name() + "/" + key.mode());
              }

              @Override
              public void suspended() {}

              @Override
              public void resumed() {}

              @Override
              public void sessionLost(String reason) {}
            });
    Duration lease = Duration.ofSeconds(30);
    for (dev.locksmith.spi.LockMode mode : dev.locksmith.spi.LockMode.values()) {
      dev.locksmith.spi.LockKey key = new dev.locksmith.spi.LockKey("own-" + mode, mode);
      assertThat(store.tryAcquire(key, "o", lease).isAcquired()).isTrue();
      assertThat(store.tryAcquire(key, "o", lease).isAcquired()).isTrue();
      assertThat(store.release(key, "o"))
          .isEqualTo(dev.locksmith.spi.ReleaseOutcome.HOLD_DECREMENTED);
      assertThat(store.extend(key, "o", lease)).isTrue();
      assertThat(store.release(key, "o")).isEqualTo(dev.locksmith.spi.ReleaseOutcome.RELEASED);
    }
    // A loss the store must report, after everything above: ZooKeeper delivers watch events in
    // order, so a report of an earlier release would come before this one.
    dev.locksmith.spi.LockKey marker =
        new dev.locksmith.spi.LockKey("marker", dev.locksmith.spi.LockMode.EXCLUSIVE);
    assertThat(store.tryAcquire(marker, "o", lease).isAcquired()).isTrue();
    deleteChildren(admin, store.lockPath(marker));
    await().atMost(PUSH_BOUND).until(() -> !lost.isEmpty());
    assertThat(lost).containsExactly("marker/EXCLUSIVE");
  }

  @Test
  @DisplayName(
      "a base path in ZooKeeper's reserved /zookeeper tree is refused at open, before any"
          + " connection; /zookeeperish is an ordinary path")
  void reservedTreeRefused() throws Exception {
    // Nothing listens there: a connection would be refused, and the client would keep trying.
    int nobody = dev.locksmith.tck.fixture.ServerProcess.freePort();
    for (String base : List.of("/zookeeper", "/zookeeper/", "/zookeeper/quota", "/zookeeper/a/b")) {
      String uri =
          "zookeeper://127.0.0.1:"
              + nobody
              + base
              + "?connectionTimeout="
              + CONNECTION_TIMEOUT.toMillis()
              + "ms";
      assertThatThrownBy(() -> LockClient.open(uri).close())
          .as(base)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("/zookeeper")
          .hasMessageContaining("reserved");
    }
    CuratorFramework mine = curator();
    assertThatThrownBy(() -> new ZooKeeperLockStore(mine, "/zookeeper/locks"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved");

    LockClient ordinary = client("/zookeeperish");
    Lease lease = ordinary.lock("z").acquire(Duration.ofSeconds(5));
    assertThat(curator().getChildren().forPath("/zookeeperish/z")).hasSize(1);
    lease.release();
  }
}
