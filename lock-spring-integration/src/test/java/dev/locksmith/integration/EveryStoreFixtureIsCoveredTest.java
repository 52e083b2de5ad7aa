package dev.locksmith.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tck.fixture.StoreFixture;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Keeps the per-store classes in step with the fixtures on the test class path. */
class EveryStoreFixtureIsCoveredTest {

  private static final List<LockRegistryContract> STORES =
      List.of(
          new LockRegistryOnMemTest(),
          new LockRegistryOnH2Test(),
          new LockRegistryOnRedisTest(),
          new LockRegistryOnMemcachedTest(),
          new LockRegistryOnZooKeeperTest(),
          new LockRegistryOnEtcdTest());

  @Test
  @DisplayName("every store fixture on the class path has its LockRegistryContract class")
  void everyFixtureHasAContractClass() {
    Map<String, String> covered = new TreeMap<>();
    STORES.forEach(c -> covered.put(c.fixtureName(), c.getClass().getSimpleName()));
    List<String> fixtures = StoreFixture.all().stream().map(StoreFixture::name).sorted().toList();
    assertThat(covered.keySet()).containsExactlyElementsOf(fixtures);
  }
}
