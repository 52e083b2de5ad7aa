package dev.locksmith.jdbc;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;

/** The test kit on a real MariaDB server. */
class MariaDbLockContractTest extends LockStoreContract {

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(TestDatabases.mariaDb().lockUri(""), options);
  }
}
