package dev.locksmith.redis;

import dev.locksmith.tck.FixtureContract;

/**
 * The whole test kit on Redlock over five real, independent masters with AOF persistence (so a
 * restarted master keeps its locks and may vote at once). The faults hit a majority (three of five)
 * at once: the store is then unavailable as a whole.
 */
class RedlockContractTest extends FixtureContract {
  RedlockContractTest() {
    super(new RedlockFixture());
  }
}
