package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.mem.MemLockSpace;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/** The kit against the reference {@code mem:} store, with faults on the space's outage switch. */
class MemLockContractTest extends LockStoreContract {

  private static final String SPACE =
      "tck-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);

  @Override
  protected LockClient newClient(LockOptions options) {
    return LockClient.open("mem:" + SPACE, options);
  }

  @Override
  protected Optional<StoreFaults> faults() {
    return Optional.of(new MemStoreFaults(MemLockSpace.named(SPACE)));
  }

  @Override
  protected Optional<OutsideActor> outsideActor() {
    return Optional.of(MemLockSpace.named(SPACE)::deleteHolds);
  }

  /** Pause and kill are the space's outage; kill also drops every hold, as a restart would. */
  static final class MemStoreFaults implements StoreFaults {
    private final MemLockSpace space;

    MemStoreFaults(MemLockSpace space) {
      this.space = space;
    }

    @Override
    public void pause() {
      space.outage(true);
    }

    @Override
    public void resume() {
      space.outage(false);
    }

    @Override
    public void kill() {
      space.outage(true);
      space.restart();
    }

    @Override
    public void restart() {
      space.outage(false);
    }
  }
}
