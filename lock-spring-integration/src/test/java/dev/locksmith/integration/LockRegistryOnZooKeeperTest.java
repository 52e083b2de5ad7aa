package dev.locksmith.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("LocksmithLockRegistry on the ZooKeeper store")
class LockRegistryOnZooKeeperTest extends LockRegistryContract {
  @Override
  String fixtureName() {
    return "zookeeper";
  }

  /**
   * ZooKeeper holds are bound to the client's session, not to a lease: what the other stores show
   * as "expired without renewal, unlock() throws" is here "still held past its lease, unlock()
   * works". A hold lost in the store is covered by the deleted-key tests, which run here too.
   */
  @Override
  @Test
  @DisplayName("a session-bound hold outlives its lease without renewal; unlock() then works")
  void unlockAfterTheLeaseExpiredThrows() throws Exception {
    Duration lease = store.shortLease();
    try (LockClient noRenew =
        store.open(LockOptions.builder().leaseTime(lease).autoRenew(false).build())) {
      assertThat(noRenew.capabilities()).contains(Capability.SESSION_BOUND);
      Lock lock = new LocksmithLockRegistry(noRenew).obtain(key);
      lock.lock();
      Lock other = registryB.obtain(key);
      assertThat(other.tryLock(lease.plus(store.timingSlack()).toMillis(), TimeUnit.MILLISECONDS))
          .as("taken by another process while the holder's session lives")
          .isFalse();
      lock.unlock();
      assertThat(other.tryLock(10, TimeUnit.SECONDS)).isTrue();
      other.unlock();
    }
  }
}
