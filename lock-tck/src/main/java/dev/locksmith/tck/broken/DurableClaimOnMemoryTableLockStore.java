package dev.locksmith.tck.broken;

import dev.locksmith.Capability;
import java.util.EnumSet;
import java.util.Set;

/**
 * BROKEN ON PURPOSE: the store declares DURABLE_FENCING whatever database it runs on, and on an
 * in-memory database a restart loses the rows whose versions are the tokens: tokens start again at
 * 1.
 *
 * <p>It mirrors capabilities declared per dialect ("PostgreSQL and H2 keep their tables") instead
 * of per database: an in-memory H2 ({@code jdbc:h2:mem:}) has no durable tables, which {@code
 * lock-jdbc} itself once got wrong. After a restart a new holder's token is lower than one a fenced
 * resource has already seen, and its writes are refused (or, with a reset resource, a stale
 * holder's are accepted).
 *
 * <p>The kit must fail it on "fencing tokens keep increasing across a kill and restart of the
 * store" (5.4).
 */
public final class DurableClaimOnMemoryTableLockStore extends TableLockStore {

  /** A connection to {@code table}, which should be {@linkplain LockTable#inMemory() in memory}. */
  public DurableClaimOnMemoryTableLockStore(LockTable table) {
    super(table, "broken/durable-claim-on-memory-table");
  }

  @Override
  public Set<Capability> promises() {
    // The bug: declared for the dialect, not checked against the database.
    return EnumSet.of(Capability.FENCING, Capability.DURABLE_FENCING, Capability.REENTRANCY);
  }
}
