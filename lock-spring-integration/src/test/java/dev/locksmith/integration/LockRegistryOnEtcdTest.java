package dev.locksmith.integration;

import org.junit.jupiter.api.DisplayName;

@DisplayName("LocksmithLockRegistry on the etcd store")
class LockRegistryOnEtcdTest extends LockRegistryContract {
  @Override
  String fixtureName() {
    return "etcd";
  }
}
