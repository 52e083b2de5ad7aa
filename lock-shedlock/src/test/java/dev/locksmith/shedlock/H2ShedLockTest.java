package dev.locksmith.shedlock;

import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider suite and this module's rules on the {@code h2} store. */
class H2ShedLockTest extends ShedLockProviderContract {

  @RegisterExtension static final StoreUnderTest STORE = new StoreUnderTest("h2");

  @Override
  StoreUnderTest store() {
    return STORE;
  }
}
