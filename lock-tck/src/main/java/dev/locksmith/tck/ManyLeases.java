package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A load check of a store's renewals: one client holds many auto-renewed leases and must lose none.
 *
 * <p>The engine renews all of a client's leases on one thread, handing the renewals due together to
 * the store as one {@link dev.locksmith.spi.LockStore#extendAll} batch. A store that renews a batch
 * one round trip after another keeps only as many leases as it can renew within a lease: a store
 * module runs this check with a count and a lease that one round trip per renewal cannot keep on
 * its server (Redis: 20,000 leases of 2 s), so that the check fails when the batch is not sent
 * together. Where the store's fastest batch is only a few times faster than one request after
 * another (etcd's gateway), no count both fails the slow way and passes reliably on a loaded
 * machine: count the round trips instead, with {@code TcpProxy.delayReplies}.
 *
 * <p>The check acquires {@code count} leases on fresh names from four threads, holds them for two
 * lease times past the last acquire (each is renewed at least twice), and then asserts that no
 * lease was lost or is invalid, that a second client is refused a sample of the names, and that
 * every release succeeds. Failures are AssertJ assertion errors naming the count lost and the
 * slowest renewal call.
 */
public final class ManyLeases {

  private static final int THREADS = 4;

  private ManyLeases() {}

  /**
   * Runs the check against the store at {@code uri}.
   *
   * @throws IllegalArgumentException if {@code count} is not positive or {@code lease} not positive
   * @throws AssertionError if a lease was lost or the store let a rival in
   */
  public static void assertKept(String uri, int count, Duration lease) throws Exception {
    Objects.requireNonNull(uri, "uri must not be null");
    Objects.requireNonNull(lease, "lease must not be null");
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive, was " + count);
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    AtomicLong slowestRenewalNanos = new AtomicLong();
    LockObserver observer =
        new LockObserver() {
          @Override
          public void renewalEnded(
              String store, String lockName, RenewalOutcome outcome, Duration took) {
            slowestRenewalNanos.accumulateAndGet(took.toNanos(), Math::max);
          }
        };
    LockOptions options =
        LockOptions.builder().leaseTime(lease).autoRenew(true).observer(observer).build();
    String run = "many-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    ConcurrentLinkedQueue<String> lost = new ConcurrentLinkedQueue<>();
    ExecutorService workers = Executors.newFixedThreadPool(THREADS);
    try (LockClient client = LockClient.open(uri, options);
        LockClient rival = LockClient.open(uri)) {
      List<Future<List<Lease>>> parts = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int first = t;
        parts.add(
            workers.submit(
                () -> {
                  List<Lease> mine = new ArrayList<>();
                  for (int i = first; i < count; i += THREADS) {
                    Optional<Lease> acquired = client.lock(run + i).tryAcquire();
                    assertThat(acquired).as("lease %d on a fresh name", i).isPresent();
                    mine.add(
                        acquired
                            .get()
                            .onLost((l, why) -> lost.add(l.name() + ": " + why.reason())));
                  }
                  return mine;
                }));
      }
      List<Lease> held = new ArrayList<>(count);
      for (Future<List<Lease>> part : parts) {
        held.addAll(part.get(10, TimeUnit.MINUTES));
      }

      Thread.sleep(lease.multipliedBy(2).toMillis());

      assertThat(lost)
          .as(
              "leases lost of %d (%d lost; slowest renewal call %d ms)",
              count, lost.size(), TimeUnit.NANOSECONDS.toMillis(slowestRenewalNanos.get()))
          .isEmpty();
      assertThat(held).as("leases still valid").allMatch(Lease::isValid);
      for (int i = 0; i < count; i += Math.max(1, count / 200)) {
        assertThat(rival.lock(run + i).tryAcquire())
            .as("a rival's attempt on held lock %d", i)
            .isEmpty();
      }
      List<Future<?>> releases = new ArrayList<>();
      for (Future<List<Lease>> part : parts) {
        List<Lease> mine = part.get();
        releases.add(workers.submit(() -> mine.forEach(Lease::release)));
      }
      for (Future<?> release : releases) {
        release.get(10, TimeUnit.MINUTES);
      }
    } finally {
      workers.shutdownNow();
    }
  }
}
