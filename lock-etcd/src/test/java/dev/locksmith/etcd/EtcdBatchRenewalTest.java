package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.LockOptions;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockUri;
import dev.locksmith.tck.fixture.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The etcd store renews a batch's holds several at a time, since its JSON gateway answers each
 * request on its own: one extend after another renewed about 80 leases a second on a 2-core machine
 * and lost all of 2,000 leases of 5 s. Counted in round trips, not in throughput: every answer
 * comes through a link that delays it, so the batch's time says how many rounds it waited for,
 * whatever the machine's load.
 */
class EtcdBatchRenewalTest {

  private static final Duration DELAY = Duration.ofMillis(200);

  @Test
  @DisplayName(
      "16 renewals and a free name in one batch, each answer delayed 200 ms, take under half the"
          + " 9.8 s that 49 requests one after another need; each extension gets its own answer")
  void batchGoesSeveralAtATime() throws Exception {
    try (EtcdServer server = EtcdServer.start();
        TcpProxy link = TcpProxy.start("127.0.0.1", server.port());
        EtcdLockStore store =
            (EtcdLockStore)
                new EtcdLockProvider()
                    .open(
                        LockUri.parse("etcd://127.0.0.1:" + link.port() + "?operationTimeout=5s"),
                        LockOptions.defaults())) {
      Duration lease = Duration.ofSeconds(30);
      List<LeaseExtension> batch = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        LockKey key = LockKey.exclusive("batch-" + i);
        String owner = "owner-" + i;
        assertThat(store.tryAcquire(key, owner, lease).isAcquired()).isTrue();
        batch.add(new LeaseExtension(key, owner, lease));
      }
      batch.add(new LeaseExtension(LockKey.exclusive("batch-free"), "owner-x", lease));
      link.delayReplies(DELAY);

      long start = System.nanoTime();
      boolean[] held = store.extendAll(batch);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      boolean[] expected = new boolean[17];
      Arrays.fill(expected, 0, 16, true);
      assertThat(held).as("answers of the batch").containsExactly(expected);
      // One after another: 16 extends of three requests each (range, keep-alive, range) and one
      // range of the free name, each waiting for its delayed answer.
      Duration oneAfterAnother = DELAY.multipliedBy(16 * 3 + 1);
      assertThat(took)
          .as("time of the batch; one extend after another takes at least %s", oneAfterAnother)
          .isLessThan(oneAfterAnother.dividedBy(2));
    }
  }
}
