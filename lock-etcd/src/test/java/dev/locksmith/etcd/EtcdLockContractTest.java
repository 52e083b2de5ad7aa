package dev.locksmith.etcd;

import dev.locksmith.etcd.fixture.EtcdFixture;
import dev.locksmith.tck.FixtureContract;

/** The whole test kit on a real etcd member, through the provider ({@code etcd://}). */
class EtcdLockContractTest extends FixtureContract {
  EtcdLockContractTest() {
    super(new EtcdFixture());
  }
}
