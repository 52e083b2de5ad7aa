package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.locksmith.LockObserver;
import dev.locksmith.LockObserver.RenewalOutcome;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How the watchdog hands due renewals to the store: together, as {@link LockStore#extendAll}
 * batches of at most {@link LeaseWatchdog#MAX_BATCH}, each answer applied to its own lease.
 *
 * <p>As in {@link LeaseScheduleTest}, every lease starts an hour from now and the test ticks it at
 * chosen instants; the renewal thread is held busy while the renewals are queued, so what reaches
 * the store does not depend on how fast that thread wakes up.
 */
class RenewalBatchTest {

  private static final long HOUR = TimeUnit.HOURS.toNanos(1);
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final MemLockSpace space = MemLockSpace.named("batch-" + UUID.randomUUID());
  private final BatchRecordingStore store = new BatchRecordingStore(new MemLockStore(space));
  private final List<RenewalOutcome> renewals = new CopyOnWriteArrayList<>();
  private final EngineClient client =
      new EngineClient(
          store,
          LockOptions.builder()
              .observer(
                  new LockObserver() {
                    @Override
                    public void renewalEnded(
                        String store, String lockName, RenewalOutcome outcome, Duration took) {
                      renewals.add(outcome);
                    }
                  })
              .build());
  private final long start = System.nanoTime() + HOUR;

  @AfterEach
  void close() {
    client.close();
  }

  /** A store over mem: that records the size of every batch and may change its answers. */
  static final class BatchRecordingStore implements LockStore {
    private final LockStore mem;
    final List<Integer> batches = new CopyOnWriteArrayList<>();
    volatile UnaryOperator<boolean[]> answers = UnaryOperator.identity();
    volatile int failuresLeft;

    BatchRecordingStore(LockStore mem) {
      this.mem = mem;
    }

    @Override
    public String describe() {
      return "batch-recording";
    }

    @Override
    public String keyPrefix() {
      return mem.keyPrefix();
    }

    @Override
    public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
      return mem.tryAcquire(key, owner, leaseTime);
    }

    @Override
    public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
      throw new AssertionError("the engine renews through extendAll");
    }

    @Override
    public boolean[] extendAll(List<LeaseExtension> extensions) throws Exception {
      batches.add(extensions.size());
      if (failuresLeft > 0) {
        failuresLeft--;
        throw new UncheckedIOException(new IOException("connection reset"));
      }
      boolean[] held = new boolean[extensions.size()];
      for (int i = 0; i < held.length; i++) {
        LeaseExtension e = extensions.get(i);
        held[i] = mem.extend(e.key(), e.owner(), e.leaseTime());
      }
      return answers.apply(held);
    }

    @Override
    public ReleaseOutcome release(LockKey key, String owner) throws Exception {
      return mem.release(key, owner);
    }

    @Override
    public LockState read(LockKey key) throws Exception {
      return mem.read(key);
    }

    @Override
    public void close() {
      mem.close();
    }
  }

  /** {@code count} auto-renewed 30 s leases held in the store, started at {@link #start}. */
  private List<EngineLease> leases(int count) throws Exception {
    List<EngineLease> leases = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      LockKey key = LockKey.exclusive("lease-" + i);
      String owner = client.newOwner("t");
      assertThat(store.tryAcquire(key, owner, Duration.ofHours(2)).isAcquired()).isTrue();
      leases.add(
          new EngineLease(
              client, key, owner, OwnerScope.THIS_HOLD, 1, Duration.ofSeconds(30), true, start));
    }
    return leases;
  }

  /** Makes every lease's renewal due while the renewal thread is busy, then lets it run. */
  private void renewAllAtOnce(List<EngineLease> leases) throws InterruptedException {
    try (BusyRenewalThread busy = new BusyRenewalThread(client.watchdog())) {
      for (EngineLease lease : leases) {
        lease.tick(start + 10 * SECOND);
      }
    }
  }

  private static List<String> lostNames(List<EngineLease> leases) {
    List<String> lost = new CopyOnWriteArrayList<>();
    leases.forEach(l -> l.onLost((lease, why) -> lost.add(lease.name())));
    return lost;
  }

  @Test
  @DisplayName(
      "2,500 renewals due together reach the store as batches of 1,000, 1,000 and 500, and renew"
          + " every lease")
  void dueRenewalsGoTogether() throws Exception {
    List<EngineLease> leases = leases(2_500);
    List<String> lost = lostNames(leases);
    renewAllAtOnce(leases);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 2_500);
    assertThat(store.batches).containsExactly(1_000, 1_000, 500);
    assertThat(renewals).containsOnly(RenewalOutcome.RENEWED);
    assertThat(lost).isEmpty();
    assertThat(leases).allMatch(EngineLease::isValid);
  }

  @Test
  @DisplayName("a false answer in a batch loses that lease alone")
  void falseAnswerLosesItsLeaseAlone() throws Exception {
    List<EngineLease> leases = leases(5);
    List<String> lost = lostNames(leases);
    EngineLease gone = leases.get(2);
    assertThat(store.release(gone.key(), gone.owner())).isEqualTo(ReleaseOutcome.RELEASED);
    renewAllAtOnce(leases);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 5);
    assertThat(store.batches).containsExactly(5);
    assertThat(lost).containsExactly(gone.name());
    assertThat(renewals)
        .containsExactly(
            RenewalOutcome.RENEWED,
            RenewalOutcome.RENEWED,
            RenewalOutcome.LOST,
            RenewalOutcome.RENEWED,
            RenewalOutcome.RENEWED);
  }

  @Test
  @DisplayName(
      "a batch the store fails is retried for each of its leases, and none is lost while the"
          + " retry succeeds")
  void failedBatchIsRetried() throws Exception {
    List<EngineLease> leases = leases(3);
    List<String> lost = lostNames(leases);
    store.failuresLeft = 1;
    renewAllAtOnce(leases);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 3);
    assertThat(renewals).containsOnly(RenewalOutcome.FAILED);
    // Each lease now retries soon, on its own clock: a tick at that instant queues it again.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              leases.forEach(l -> l.tick(System.nanoTime()));
              return renewals.size() == 6;
            });
    assertThat(renewals.subList(3, 6)).containsOnly(RenewalOutcome.RENEWED);
    assertThat(lost).isEmpty();
    assertThat(leases).allMatch(EngineLease::isValid);
  }

  @Test
  @DisplayName(
      "a store that answers a batch with too few answers fails the batch with a message naming"
          + " the count, and no lease is taken for lost")
  void wrongAnswerCountIsAFailure() throws Exception {
    List<EngineLease> leases = leases(3);
    List<String> lost = lostNames(leases);
    store.answers = held -> Arrays.copyOf(held, 1);
    List<LeaseExtension> batch = new ArrayList<>();
    for (EngineLease l : leases) {
      batch.add(new LeaseExtension(l.key(), l.owner(), Duration.ofSeconds(30)));
    }
    assertThat(catchThrowable(() -> client.gateway().extendAll(batch)))
        .isInstanceOf(LockStoreException.class)
        .hasMessage(
            "extend of lock 'lease-0' and 2 other locks in one batch failed on batch-recording:"
                + " the store gave 1 answer for 3 extensions (a store answers each extension of a"
                + " batch)");
    renewAllAtOnce(leases);
    await().atMost(Duration.ofSeconds(30)).until(() -> renewals.size() == 3);
    assertThat(renewals).containsOnly(RenewalOutcome.FAILED);
    assertThat(lost).isEmpty();
  }
}
