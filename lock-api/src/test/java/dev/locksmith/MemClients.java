package dev.locksmith;

import dev.locksmith.mem.MemLockSpace;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Clients on a fresh mem: space per test, standing for separate processes; {@link #close()} ends
 * any outage and closes them all.
 */
final class MemClients implements AutoCloseable {

  private final String space = "test-" + UUID.randomUUID();
  private final List<LockClient> clients = new ArrayList<>();

  /** A new client on this test's space. */
  LockClient open(LockOptions options) {
    LockClient c = LockClient.open("mem:" + space, options);
    clients.add(c);
    return c;
  }

  /** A new client with default options. */
  LockClient open() {
    return open(LockOptions.defaults());
  }

  /** Adds a client built some other way, to be closed with the rest. */
  LockClient track(LockClient client) {
    clients.add(client);
    return client;
  }

  /** The space, for fault injection. */
  MemLockSpace space() {
    return MemLockSpace.named(space);
  }

  /** The store name clients report: {@code mem:<space>}. */
  String storeName() {
    return "mem:" + space;
  }

  @Override
  public void close() {
    space().endOutage();
    clients.forEach(LockClient::close);
  }
}
