package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LeaseExtension;
import java.util.List;

/**
 * BROKEN ON PURPOSE: its single operations report an outage as a failure, but its batch renewal
 * answers a failed batch as "not held": {@code false} for every extension.
 *
 * <p>It mirrors a pipelined renewal that reads a failed reply (a reset connection, a timeout) as
 * the script's {@code 0}, or a JDBC batch whose {@code BatchUpdateException} is caught and read as
 * no rows updated. Every lease of the batch is then reported lost at the first network blip, though
 * the store still holds them.
 *
 * <p>The kit must fail it on the SPI's outage rule (12.8), which asks {@code extendAll} during an
 * outage. (The engine-level fault rules pass, as for {@link OutageAsNotHeldLockStore}: the early
 * "lost" they see is what an outage longer than the lease must produce anyway.)
 */
public final class BatchOutageAsNotHeldLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public BatchOutageAsNotHeldLockStore(MemLockSpace space) {
    super(space, "broken/batch-outage-as-not-held");
  }

  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) throws Exception {
    try {
      return super.extendAll(extensions);
    } catch (RuntimeException e) {
      return new boolean[extensions.size()]; // The bug: "could not ask" becomes "not held".
    }
  }
}
