package dev.locksmith.shedlock;

import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider suite and this module's rules on the {@code redis} store. */
class RedisShedLockTest extends ShedLockProviderContract {

  @RegisterExtension static final StoreUnderTest STORE = new StoreUnderTest("redis");

  @Override
  StoreUnderTest store() {
    return STORE;
  }
}
