package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockObserver;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One client keeps many auto-renewed leases on a real Redis: its one renewal thread must keep up.
 *
 * <p>20,000 leases of 2 s need a renewal each before it runs out, at least 10,000 a second, and
 * 15,000 a second to renew each at a third of its lease. One round trip per renewal, one after
 * another, reached 2,800-3,700 a second on a 2-core machine, and lost leases; the engine sends the
 * renewals due together as one batch, which the store pipelines.
 */
class RedisManyLeasesTest {

  private static final int LEASES = 20_000;
  private static final Duration LEASE = Duration.ofSeconds(2);

  static RedisServer redis;

  @BeforeAll
  static void start() {
    redis = RedisServer.startVolatile();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @Test
  @DisplayName(
      "one client keeps 20,000 auto-renewed 2 s leases for two lease times past the last acquire:"
          + " none is lost, and the store holds them all")
  void keepsTwentyThousandShortLeases() throws Exception {
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
        LockOptions.builder().leaseTime(LEASE).autoRenew(true).observer(observer).build();
    String run = "many-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    ConcurrentLinkedQueue<String> lost = new ConcurrentLinkedQueue<>();
    List<Lease> held = new ArrayList<>(LEASES);
    ExecutorService acquirers = Executors.newFixedThreadPool(4);
    try (LockClient client = LockClient.open(redis.uri(), options);
        LockClient rival = LockClient.open(redis.uri())) {
      List<Future<List<Lease>>> parts = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t;
        parts.add(
            acquirers.submit(
                () -> {
                  List<Lease> mine = new ArrayList<>();
                  for (int i = first; i < LEASES; i += 4) {
                    Optional<Lease> lease = client.lock(run + i).tryAcquire();
                    assertThat(lease).as("lease %d on a fresh name", i).isPresent();
                    mine.add(
                        lease.get().onLost((l, why) -> lost.add(l.name() + ": " + why.reason())));
                  }
                  return mine;
                }));
      }
      for (Future<List<Lease>> part : parts) {
        held.addAll(part.get(120, TimeUnit.SECONDS));
      }

      // Two whole lease times: every lease is renewed at least twice, each before it runs out.
      Thread.sleep(LEASE.multipliedBy(2).toMillis());

      assertThat(lost)
          .as(
              "leases lost of %d (slowest renewal call %d ms)",
              LEASES, TimeUnit.NANOSECONDS.toMillis(slowestRenewalNanos.get()))
          .isEmpty();
      assertThat(held).as("leases still valid").allMatch(Lease::isValid);
      for (int i = 0; i < LEASES; i += 97) {
        assertThat(rival.lock(run + i).tryAcquire())
            .as("a rival's attempt on held lock %d", i)
            .isEmpty();
      }
      List<Future<?>> releases = new ArrayList<>();
      for (Future<List<Lease>> part : parts) {
        List<Lease> mine = part.get();
        releases.add(acquirers.submit(() -> mine.forEach(Lease::release)));
      }
      for (Future<?> release : releases) {
        release.get(120, TimeUnit.SECONDS);
      }
    } finally {
      acquirers.shutdownNow();
    }
  }
}
