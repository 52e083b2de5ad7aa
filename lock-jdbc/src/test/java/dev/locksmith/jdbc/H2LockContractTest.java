package dev.locksmith.jdbc;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;

/** The test kit on H2 in memory, through the {@code jdbc:} provider. */
class H2LockContractTest extends LockStoreContract {

  private static final String URL = TestDatabases.newH2Url();

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open(URL, options);
  }
}
