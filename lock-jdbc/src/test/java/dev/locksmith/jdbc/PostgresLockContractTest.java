package dev.locksmith.jdbc;

import dev.locksmith.tck.FixtureContract;

/** The test kit on a real PostgreSQL server of its own, paused, killed and restarted by signals. */
class PostgresLockContractTest extends FixtureContract {
  PostgresLockContractTest() {
    super(DatabaseFixtures.postgres());
  }
}
