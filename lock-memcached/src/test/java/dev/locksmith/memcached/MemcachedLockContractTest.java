package dev.locksmith.memcached;

import dev.locksmith.memcached.fixture.MemcachedFixture;
import dev.locksmith.tck.FixtureContract;

/**
 * The test kit against a real memcached, opened through the provider ({@code memcached://}) so the
 * URI path and {@code ServiceLoader} registration are what the kit exercises.
 */
class MemcachedLockContractTest extends FixtureContract {
  MemcachedLockContractTest() {
    super(new MemcachedFixture());
  }
}
