package dev.locksmith.integration;

import org.junit.jupiter.api.DisplayName;

@DisplayName("LocksmithLockRegistry on the in-process mem: store")
class LockRegistryOnMemTest extends LockRegistryContract {
  @Override
  String fixtureName() {
    return "mem";
  }
}
