package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.mem.MemLockSpace;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The kit against the reference {@code mem:} store with its waiters' queue ({@code ?waiters=queue},
 * FAIR_QUEUE): the engine's queued wait and the queue rules (7.9, 7.10) run without a ZooKeeper
 * server.
 */
class MemQueueLockContractTest extends LockStoreContract {

  private static final String SPACE =
      "tck-queue-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open("mem:" + SPACE + "?waiters=queue", options);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(new MemLockContractTest.MemStoreFaults(MemLockSpace.named(SPACE)));
  }

  @Override
  protected Optional<OutsideActor> outsideActor() {
    return Optional.of(MemLockSpace.named(SPACE)::deleteHolds);
  }
}
