package dev.locksmith.internal;

import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;

/** The engine's read-write lock: the same engine lock, in READ and in WRITE mode. */
final class EngineReadWriteLock implements DistributedReadWriteLock {

  private final String name;
  private final DistributedLock read;
  private final DistributedLock write;

  EngineReadWriteLock(EngineClient client, String name) {
    this.name = name;
    this.read = new EngineLock(client, new LockKey(name, LockMode.READ));
    this.write = new EngineLock(client, new LockKey(name, LockMode.WRITE));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DistributedLock readLock() {
    return read;
  }

  @Override
  public DistributedLock writeLock() {
    return write;
  }
}
