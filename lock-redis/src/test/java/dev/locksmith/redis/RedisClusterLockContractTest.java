package dev.locksmith.redis;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import dev.locksmith.tck.StoreFaults;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole test kit on a real three-master Redis Cluster. */
class RedisClusterLockContractTest extends LockStoreContract {

  static RedisCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(cluster.uri(), options);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(cluster);
  }

  @Override
  protected Optional<String> storeUri() {
    return Optional.of(cluster.uri());
  }
}
