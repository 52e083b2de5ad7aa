package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.zookeeper.fixture.ZooKeeperFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What the store leaves on the server: lock parents are containers, which the server's reaper
 * deletes once they are empty, and tokens come from transaction ids, which never go back, also when
 * a parent is deleted and created again. Counted with the fixture's {@link StoreInspector}, as the
 * kit's footprint rules count.
 */
class ZooKeeperFootprintTest {

  private static final Duration WAIT = Duration.ofSeconds(5);

  /** What a loaded 2-core machine may add to the reaper's timing. */
  private static final Duration SLACK = Duration.ofSeconds(5);

  private static RunningStore store;
  private static StoreInspector inspector;

  @BeforeAll
  static void start() {
    store = new ZooKeeperFixture().start();
    inspector = store.inspector().orElseThrow();
  }

  @AfterAll
  static void stop() {
    store.close();
  }

  private static LockClient client(String keyPrefix) {
    return store.open(LockOptions.builder().keyPrefix(keyPrefix).build());
  }

  @Test
  @DisplayName(
      "1,000 distinct names acquired and released (exclusive, nested, read and write) leave no"
          + " node once the container reaper ran: neither lock parents, nor read-write parents"
          + " with their token data, nor the key prefix's node")
  void releasedNamesLeaveNothing() throws Exception {
    try (LockClient c = client("fp-");
        LockClient neighbour = client("fp-other-")) {
      Lease kept = neighbour.lock("kept").acquire(WAIT);
      for (int i = 0; i < 1000; i++) {
        String name = "order:" + i;
        switch (i % 4) {
          case 0 -> c.lock(name).acquire(WAIT).release();
          case 1 -> {
            DistributedLock mine = c.lock(name).withOwner("worker-" + i);
            Lease outer = mine.acquire(WAIT);
            mine.acquire(WAIT).release();
            outer.release();
          }
          case 2 -> {
            DistributedReadWriteLock rw = c.readWriteLock(name);
            rw.writeLock().acquire(WAIT).release();
            rw.readLock().acquire(WAIT).release();
          }
          default -> {
            assertThat(c.lock(name).isLocked()).isFalse();
            c.lock(name).acquire(WAIT).release();
          }
        }
      }
      long rightAfter = inspector.entries("fp-");
      long released = System.nanoTime();
      await("the nodes of key prefix fp- (" + rightAfter + " right after the releases)")
          .atMost(inspector.cleanupDelay().plus(SLACK))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> inspector.entries("fp-") <= 0);
      System.out.printf(
          "1,000 released names of key prefix fp-: %d nodes right after, 0 after %d ms%n",
          rightAfter, (System.nanoTime() - released) / 1_000_000);
      // Another prefix's live hold is its own: its node, its lock's parent and the prefix's node.
      assertThat(inspector.entries("fp-other-")).isEqualTo(3);
      kept.release();
    }
  }

  @Test
  @DisplayName(
      "tokens keep rising after idle parents are evicted or reaped (a read token lives in the"
          + " parent's data): for exclusive, read and write holds, and for a name never seen")
  void tokensRiseAfterEviction() throws Exception {
    try (LockClient c = client("ev-")) {
      long last = 0;
      for (int i = 0; i < 3; i++) {
        last = next(last, c.lock("x").acquire(WAIT));
      }
      inspector.evictIdle("ev-");
      assertThat(inspector.entries("ev-")).as("after evictIdle").isZero();
      last = next(last, c.lock("x").acquire(WAIT));

      DistributedReadWriteLock rw = c.readWriteLock("doc");
      last = next(last, rw.writeLock().acquire(WAIT));
      Lease read = rw.readLock().acquire(WAIT);
      assertThat(read.fencingToken()).as("a reader after the writer").isGreaterThanOrEqualTo(last);
      last = read.fencingToken();
      read.release();
      inspector.evictIdle("ev-");
      last = next(last, rw.readLock().acquire(WAIT));
      last = next(last, rw.writeLock().acquire(WAIT));

      // The container reaper, rather than evictIdle, deletes the parent of a released read lock.
      Lease reader = rw.readLock().acquire(WAIT);
      assertThat(reader.fencingToken()).isGreaterThanOrEqualTo(last);
      last = reader.fencingToken();
      reader.release();
      await("the reaper")
          .atMost(inspector.cleanupDelay().plus(SLACK))
          .until(() -> inspector.entries("ev-") == 0);
      last = next(last, rw.readLock().acquire(WAIT));

      last = next(last, c.lock("never-seen").acquire(WAIT));
      next(last, c.readWriteLock("never-seen-rw").readLock().acquire(WAIT));
    }
  }

  /** Releases {@code lease} and returns its token, which must exceed {@code last}. */
  private static long next(long last, Lease lease) {
    long token = lease.fencingToken();
    assertThat(token).as("the token of %s", lease.name()).isGreaterThan(last);
    lease.release();
    return token;
  }
}
