package dev.locksmith.tck;

import dev.locksmith.tck.fixture.MemFixture;

/** The kit against the reference {@code mem:} store, with faults on the space's outage switch. */
class MemLockContractTest extends FixtureContract {
  MemLockContractTest() {
    super(new MemFixture());
  }
}
