package dev.locksmith.jdbc;

import dev.locksmith.jdbc.fixture.H2Fixture;
import dev.locksmith.tck.FixtureContract;

/** The test kit on H2 served over TCP by a child JVM the kit may pause, kill and restart. */
class H2LockContractTest extends FixtureContract {
  H2LockContractTest() {
    super(new H2Fixture());
  }
}
