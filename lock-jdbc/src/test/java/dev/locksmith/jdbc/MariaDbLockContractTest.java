package dev.locksmith.jdbc;

import dev.locksmith.tck.FixtureContract;

/** The test kit on a real MariaDB server of its own, paused, killed and restarted by signals. */
class MariaDbLockContractTest extends FixtureContract {
  MariaDbLockContractTest() {
    super(DatabaseFixtures.mariaDb());
  }
}
