package dev.locksmith.shedlock;

import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider suite and this module's rules on the {@code etcd} store. */
class EtcdShedLockTest extends ShedLockProviderContract {

  @RegisterExtension static final StoreUnderTest STORE = new StoreUnderTest("etcd");

  @Override
  StoreUnderTest store() {
    return STORE;
  }

  /**
   * Upstream waits lockAtLeastFor (2 s) plus 100 ms before it takes the lock again. etcd keeps the
   * hold itself (Locksmith's releaseHeldAtLeast) as a lease of whole seconds, rounded up, whose
   * expiry etcd checks twice a second: the hold ends up to about 1.5 s after lockAtLeastFor. The
   * same test, with the store's slack instead of 100 ms.
   */
  @Override
  protected void doTestShouldLockAtLeastFor(int sleepForMs) throws InterruptedException {
    super.doTestShouldLockAtLeastFor(
        Math.toIntExact(STORE.running().timingSlack().toMillis()) + sleepForMs);
  }
}
