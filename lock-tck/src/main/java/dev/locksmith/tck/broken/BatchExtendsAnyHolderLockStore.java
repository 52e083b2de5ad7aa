package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LeaseExtension;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import java.util.List;

/**
 * BROKEN ON PURPOSE: its single {@code extend} is owner-checked, but its batch renewal is not: for
 * each extension of a batch it extends the hold of whoever holds the key, and answers true when
 * anyone does.
 *
 * <p>It mirrors a Redis driver that renews many leases by pipelining one {@code PEXPIRE} per key
 * (fast, and no script to load) instead of the owner-checked extend script, and a JDBC driver whose
 * batched {@code UPDATE … SET expires_at = ? WHERE name = ?} dropped the {@code AND owner = ?} its
 * single update has. A holder whose lease ran out and passed to a rival renews the rival's hold and
 * goes on believing it holds the lock. Read holds go through the owner-checked extend (a readers
 * hash has no key-wide expiry to set).
 *
 * <p>The kit must fail it on the batch rule (12.15); the engine renews through batches, so the
 * rules where a renewal meets a rival's hold may catch it too, by timing.
 */
public final class BatchExtendsAnyHolderLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public BatchExtendsAnyHolderLockStore(MemLockSpace space) {
    super(space, "broken/batch-extends-any-holder");
  }

  @Override
  public boolean[] extendAll(List<LeaseExtension> extensions) throws Exception {
    boolean[] held = new boolean[extensions.size()];
    for (int i = 0; i < held.length; i++) {
      LeaseExtension e = extensions.get(i);
      if (e.key().mode() == LockMode.READ) {
        held[i] = extend(e.key(), e.owner(), e.leaseTime());
        continue;
      }
      // The bug: the key's current holder, whoever it is, gets the new lease.
      LockState state = delegate.read(e.key());
      String holder = state.owner();
      held[i] = holder != null && delegate.extend(e.key(), holder, e.leaseTime());
    }
    return held;
  }
}
