package dev.locksmith.shedlock;

import dev.locksmith.LockClient;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider suite and this module's rules on the {@code zookeeper} store. */
class ZooKeeperShedLockTest extends ShedLockProviderContract {

  @RegisterExtension static final StoreUnderTest STORE = new StoreUnderTest("zookeeper");

  @Override
  StoreUnderTest store() {
    return STORE;
  }

  /**
   * The fixture's clients wait 5 s for a connection (generous, for the kit on a loaded machine),
   * and a failed acquire is two such waits: 1 s is enough to see the outage here.
   */
  @Override
  LockClient outageClient() {
    String uri = STORE.running().uri().replace("connectionTimeout=5000ms", "connectionTimeout=1s");
    if (!uri.contains("connectionTimeout=1s")) {
      throw new IllegalStateException("the fixture's URI changed: " + uri);
    }
    return STORE.open(uri);
  }
}
