package dev.locksmith.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.LockOptions;
import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.etcd.internal.HoldRecord;
import dev.locksmith.etcd.internal.KeyValue;
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
 * The etcd store renews a batch's holds in few rounds: it reads the batch's keys together and keeps
 * their leases alive several at a time, since its JSON gateway answers each request on its own: one
 * extend after another renewed about 80 leases a second on a 2-core machine and lost all of 2,000
 * leases of 5 s. Counted in round trips, not in throughput: every answer comes through a link that
 * delays it, so the batch's time says how many rounds it waited for, whatever the machine's load.
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
        EtcdLockStore store = open("etcd://127.0.0.1:" + link.port())) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        names.add("batch-" + i);
      }
      List<LeaseExtension> batch = new ArrayList<>(acquire(store, names));
      batch.add(
          new LeaseExtension(LockKey.exclusive("batch-free"), "owner-x", Duration.ofSeconds(30)));
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

  @Test
  @DisplayName(
      "129 renewals, each answer delayed 200 ms, take under 30 rounds: the keys read together"
          + " (two transactions), 17 rounds of eight keep-alives, the keys read again; three"
          + " requests per extend, eight extends at a time, are 51 rounds")
  void batchReadsItsKeysTogether() throws Exception {
    try (EtcdServer server = EtcdServer.start();
        TcpProxy link = TcpProxy.start("127.0.0.1", server.port());
        EtcdLockStore store = open("etcd://127.0.0.1:" + link.port())) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 129; i++) {
        names.add("many-" + i);
      }
      List<LeaseExtension> batch = acquire(store, names);
      link.delayReplies(DELAY);

      long start = System.nanoTime();
      boolean[] held = store.extendAll(batch);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      boolean[] all = new boolean[129];
      Arrays.fill(all, true);
      assertThat(held).as("answers of the batch").containsExactly(all);
      assertThat(took)
          .as("time of the batch; 51 rounds of %s take %s", DELAY, DELAY.multipliedBy(51))
          .isLessThan(DELAY.multipliedBy(30));
    }
  }

  @Test
  @DisplayName(
      "the keys of a batch are read in transactions of at most 128 reads, answers in order, an"
          + " absent key null; a server that takes fewer operations in a transaction gets them one"
          + " by one, and the batch renews all the same")
  void keysReadTogetherOnAnyServer() throws Exception {
    for (String[] etcdArgs : List.of(new String[0], new String[] {"--max-txn-ops=4"})) {
      try (EtcdServer server = EtcdServer.start(etcdArgs);
          EtcdLockStore store = open(server.uri())) {
        List<String> held = new ArrayList<>();
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 130; i++) {
          keys.add(store.lockKey("read-" + i));
          if (i % 3 != 0) {
            held.add("read-" + i);
          }
        }
        List<LeaseExtension> batch = acquire(store, held);

        List<KeyValue> found = server.kv().getAll(keys);

        assertThat(found).as("with %s", List.of(etcdArgs)).hasSize(130);
        for (int i = 0; i < 130; i++) {
          if (i % 3 == 0) {
            assertThat(found.get(i)).as("free name read-%d", i).isNull();
          } else {
            assertThat(found.get(i)).as("held name read-%d", i).isNotNull();
            assertThat(HoldRecord.decode(found.get(i).value()).owner())
                .as("owner of read-%d", i)
                .isEqualTo("owner-read-" + i);
          }
        }
        boolean[] all = new boolean[batch.size()];
        Arrays.fill(all, true);
        assertThat(store.extendAll(batch)).as("with %s", List.of(etcdArgs)).containsExactly(all);
      }
    }
  }

  /** Acquires each name with a 30 s lease for the owner "owner-" + name; their extensions. */
  private static List<LeaseExtension> acquire(EtcdLockStore store, List<String> names) {
    Duration lease = Duration.ofSeconds(30);
    List<LeaseExtension> batch = new ArrayList<>();
    for (String name : names) {
      LockKey key = LockKey.exclusive(name);
      String owner = "owner-" + name;
      assertThat(store.tryAcquire(key, owner, lease).isAcquired()).as("acquire %s", key).isTrue();
      batch.add(new LeaseExtension(key, owner, lease));
    }
    return batch;
  }

  private static EtcdLockStore open(String uri) {
    return (EtcdLockStore)
        new EtcdLockProvider()
            .open(LockUri.parse(uri + "?operationTimeout=5s"), LockOptions.defaults());
  }
}
