package dev.locksmith.integration;

import org.junit.jupiter.api.DisplayName;

@DisplayName("LocksmithLockRegistry on the memcached store")
class LockRegistryOnMemcachedTest extends LockRegistryContract {
  @Override
  String fixtureName() {
    return "memcached";
  }
}
