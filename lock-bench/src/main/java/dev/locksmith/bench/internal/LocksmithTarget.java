package dev.locksmith.bench.internal;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.bench.LockTarget;
import java.time.Duration;

/**
 * Locksmith with default options (30 s leases, auto-renewed) on one store, as a user would open it:
 * {@code LockClient.open(uri)}, then {@code client.lock(name).acquire(wait)} per operation.
 */
final class LocksmithTarget implements LockTarget {

  private static final Duration WAIT = Duration.ofMillis(MAX_WAIT_MILLIS);

  private final String id;
  private final LockClient client;

  LocksmithTarget(String id, String uri) {
    this.id = id;
    this.client = LockClient.open(uri);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public Held acquire(String name) throws InterruptedException {
    Lease lease = client.lock(name).acquire(WAIT);
    return lease::release;
  }

  @Override
  public boolean blocking() {
    return true;
  }

  @Override
  public void close() {
    client.close();
  }
}
