package dev.locksmith.integration;

import org.junit.jupiter.api.DisplayName;

@DisplayName("LocksmithLockRegistry on the H2 (lock-jdbc) store")
class LockRegistryOnH2Test extends LockRegistryContract {
  @Override
  String fixtureName() {
    return "h2";
  }
}
