package dev.locksmith.tck;

import dev.locksmith.tck.fixture.MemFixture;

/** The kit against the {@code mem:} store whose waiters queue ({@code FAIR_QUEUE}). */
class MemQueueLockContractTest extends FixtureContract {
  MemQueueLockContractTest() {
    super(MemFixture.queueing());
  }
}
