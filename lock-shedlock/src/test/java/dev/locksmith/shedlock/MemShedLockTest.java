package dev.locksmith.shedlock;

import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider suite and this module's rules on the {@code mem} store. */
class MemShedLockTest extends ShedLockProviderContract {

  @RegisterExtension static final StoreUnderTest STORE = new StoreUnderTest("mem");

  @Override
  StoreUnderTest store() {
    return STORE;
  }
}
