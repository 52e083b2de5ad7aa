package dev.locksmith.integration;

import org.junit.jupiter.api.DisplayName;

@DisplayName("LocksmithLockRegistry on the Redis store")
class LockRegistryOnRedisTest extends LockRegistryContract {
  @Override
  String fixtureName() {
    return "redis";
  }
}
