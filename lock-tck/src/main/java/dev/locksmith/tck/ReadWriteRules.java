package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Capability;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.UnsupportedCapabilityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Promise 8: many readers or one writer; writers are not starved. */
public interface ReadWriteRules extends KitTest {

  private static DistributedReadWriteLock rw(LockClient c, String name) {
    return c.readWriteLock(name);
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_1_readersShare() {
    Kit kit = kit();
    String name = kit.name("rw");
    List<Lease> reads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      reads.add(rw(kit.client(), name).readLock().tryAcquire().orElseThrow());
    }
    assertThat(reads).allMatch(Lease::isValid);
    reads.forEach(Lease::release);
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_2_writerIsExclusive() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    String name = kit.name("rw");
    Lease r1 = rw(a, name).readLock().tryAcquire().orElseThrow();
    Lease r2 = rw(b, name).readLock().tryAcquire().orElseThrow();
    assertThat(rw(c, name).writeLock().tryAcquire()).as("writer while read").isEmpty();
    r1.release();
    assertThat(rw(c, name).writeLock().tryAcquire()).as("writer with one reader").isEmpty();
    r2.release();
    Lease w = rw(c, name).writeLock().tryAcquire().orElseThrow();
    assertThat(rw(b, name).readLock().tryAcquire()).as("reader while written").isEmpty();
    assertThat(rw(b, name).writeLock().tryAcquire()).as("writer while written").isEmpty();
    assertThat(rw(a, name).readLock().tryAcquire()).as("reader while written").isEmpty();
    w.release();
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_3_writerNotStarved() throws Exception {
    Kit kit = kit();
    LockClient w = kit.client();
    String name = kit.name("rw");
    LockHistory history = new LockHistory();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger reading = new AtomicInteger();
    int readers = 3;
    ExecutorService pool = kit.pool(readers);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < readers; i++) {
      LockClient c = kit.client();
      int offset = i;
      futures.add(
          pool.submit(
              () -> {
                Thread.sleep(offset * 50L);
                while (!stop.get()) {
                  Optional<Lease> r = rw(c, name).readLock().tryAcquire(Duration.ofMillis(200));
                  if (r.isEmpty()) {
                    continue;
                  }
                  LockHistory.Hold h = history.acquiredShared(name, LockHistory.NO_TOKEN);
                  reading.incrementAndGet();
                  Thread.sleep(150);
                  reading.decrementAndGet();
                  h.released();
                  r.get().release();
                }
                return null;
              }));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> reading.get() > 0);
    Duration bound = Duration.ofMillis(150).plus(kit.slack().multipliedBy(3));
    long start = System.nanoTime();
    Optional<Lease> write;
    try {
      write = rw(w, name).writeLock().tryAcquire(bound);
      write.ifPresent(
          l -> {
            LockHistory.Hold h = history.acquired(name, LockHistory.NO_TOKEN);
            h.released();
          });
    } finally {
      stop.set(true);
    }
    for (Future<?> f : futures) {
      Kit.within(f, Duration.ofSeconds(30), "a reader");
    }
    assertThat(write)
        .as("write lock after %d ms behind a stream of readers", Kit.millisSince(start))
        .isPresent();
    write.get().release();
    HistoryChecker.assertConsistent(history);
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_4_withdrawnWriterLetsReadersIn() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    String name = kit.name("rw");
    Lease r1 = rw(a, name).readLock().tryAcquire().orElseThrow();
    assertThat(rw(b, name).writeLock().tryAcquire(Duration.ofMillis(300)))
        .as("writer behind a reader")
        .isEmpty();
    Optional<Lease> r2 = rw(c, name).readLock().tryAcquire();
    assertThat(r2).as("new reader after the writer gave up").isPresent();
    r2.get().release();
    r1.release();
  }

  @Test
  default void rule_8_5_readWriteDeclaredTruthfully() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("rw");
    if (a.capabilities().contains(Capability.READ_WRITE)) {
      assertThat(a.readWriteLock(name).name()).isEqualTo(name);
    } else {
      assertThatThrownBy(() -> a.readWriteLock(name))
          .isInstanceOfSatisfying(
              UnsupportedCapabilityException.class,
              e -> assertThat(e.capability()).isEqualTo(Capability.READ_WRITE));
    }
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_6_mixedContention() throws Exception {
    Kit kit = kit();
    List<LockClient> cs = List.of(kit.client(), kit.client(), kit.client());
    String name = kit.name("rw");
    LockHistory history = new LockHistory();
    ExecutorService pool = kit.pool(6);
    List<Future<?>> futures = new ArrayList<>();
    int rounds = Math.max(5, kit.contentionRounds() / 2);
    for (int t = 0; t < 6; t++) {
      LockClient c = cs.get(t % cs.size());
      boolean writer = t < 2;
      futures.add(
          pool.submit(
              () -> {
                for (int r = 0; r < rounds; r++) {
                  DistributedReadWriteLock lock = rw(c, name);
                  Lease l =
                      (writer ? lock.writeLock() : lock.readLock()).acquire(Duration.ofSeconds(60));
                  long token = writer ? Kit.tokenOf(c, l) : LockHistory.NO_TOKEN;
                  LockHistory.Hold h =
                      writer ? history.acquired(name, token) : history.acquiredShared(name, token);
                  Thread.sleep(2);
                  h.released();
                  l.release();
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      Kit.within(f, Duration.ofSeconds(120), "a reader or writer");
    }
    HistoryChecker.assertConsistent(history);
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_7_failedWriteTryAcquireLeavesNoMark() {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    String name = kit.name("rw");
    Lease r1 = rw(a, name).readLock().tryAcquire().orElseThrow();
    assertThat(rw(b, name).writeLock().tryAcquire()).as("writer while read").isEmpty();
    r1.release();
    Optional<Lease> r2 = rw(c, name).readLock().tryAcquire();
    assertThat(r2)
        .as(
            "a new reader after a non-waiting writer gave up: tryAcquire() never waits, so it"
                + " must not leave a waiting-writer mark behind")
        .isPresent();
    r2.get().release();
  }

  @Test
  @Requires(Capability.READ_WRITE)
  default void rule_8_8_writerExcludesReadersOfItsOwnClient() {
    Kit kit = kit();
    LockClient a = kit.client();
    String name = kit.name("rw");
    Lease w = rw(a, name).writeLock().tryAcquire().orElseThrow();
    assertThat(rw(a, name).readLock().tryAcquire())
        .as("a reader of the writer's own client (another owner) while the writer holds")
        .isEmpty();
    w.release();
    assertThat(rw(a, name).readLock().tryAcquire())
        .as("a reader of that client once the writer released")
        .hasValueSatisfying(Lease::release);
  }
}
