package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.spring.internal.MicrometerLockObserver;
import dev.locksmith.spring.internal.StoreTag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The meters' {@code store} tag for what each store's {@code describe()} says: the store's kind,
 * never an address, whatever the store puts in its description.
 */
class StoreTagTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "redis://127.0.0.1:16379 | redis",
        "redis://10.0.0.5:6379 (watch) | redis",
        "rediss://cache.example.com:6380 | rediss",
        "redis-sentinel://a:26379,b:26379/0#mymaster | redis-sentinel",
        "redis-cluster://a:7000,b:7001 | redis-cluster",
        "redlock://a:6379,b:6379,c:6379 | redlock",
        "memcached://127.0.0.1:11211,127.0.0.1:11212 | memcached",
        "etcd://127.0.0.1:2379 | etcd",
        "jdbc/h2 | jdbc/h2",
        "jdbc/postgresql | jdbc/postgresql",
        "zookeeper | zookeeper",
        "mem:orders | mem",
        "redis://127.0.0.1:6379 (faults injected) | redis",
      })
  void kindOfStore(String description, String tag) {
    assertThat(StoreTag.of(description)).isEqualTo(tag);
  }

  @Test
  @DisplayName("a real mem: client's meters are tagged mem")
  void memStoreIsTaggedMem() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LockOptions options =
        LockOptions.builder().observer(new MicrometerLockObserver(registry)).build();
    try (LockClient client = LockClient.open("mem:store-tag", options);
        Lease lease = client.lock("a").tryAcquire().orElseThrow()) {
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(registry.get("locksmith.acquire").timers())
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.getId().getTag("store")).isEqualTo("mem"));
  }
}
