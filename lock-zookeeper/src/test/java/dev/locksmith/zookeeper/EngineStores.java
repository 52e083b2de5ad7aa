package dev.locksmith.zookeeper;

import dev.locksmith.LockClient;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.spi.LockStore;

/** Reaches the store behind an engine client. */
final class EngineStores {

  private EngineStores() {}

  static LockStore store(LockClient client) {
    return ((EngineClient) client).store();
  }
}
