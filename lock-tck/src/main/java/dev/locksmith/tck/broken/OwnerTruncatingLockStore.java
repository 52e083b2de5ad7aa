package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;

/**
 * BROKEN ON PURPOSE: owner ids are cut to 16 characters, so every owner of one client (the engine's
 * ids are {@code <prefix>/<client>/<n>}) is the same owner, and the store nests their holds.
 *
 * <p>It mirrors an {@code owner VARCHAR(16)} or {@code CHAR(16)} column on a database that
 * truncates silently (MySQL without strict mode), or a fixed 16-byte owner field in a packed value.
 * Two threads of one process then "re-enter" each other's lock: mutual exclusion is gone inside a
 * process, while different processes still exclude each other.
 *
 * <p>The kit must fail it where two owners of one client meet: two acquires from one client (1.2,
 * 14.2), contending threads of a client (1.3), the lock view on two threads (6.5), the SPI owner
 * checks with ids that share the holder's first characters (12.2), and read() reporting the
 * holder's id (12.1). The mixed read-write contention (8.6) catches it when the writer and the
 * reader on one client happen to overlap, which is luck.
 */
public final class OwnerTruncatingLockStore extends ForwardingLockStore {

  private static final int OWNER_COLUMN_WIDTH = 16;

  /** A connection to {@code space}. */
  public OwnerTruncatingLockStore(MemLockSpace space) {
    super(space, "broken/owner-truncating");
  }

  @Override
  protected String storedOwner(String owner) {
    // The bug: what does not fit the column is dropped.
    return owner.length() <= OWNER_COLUMN_WIDTH ? owner : owner.substring(0, OWNER_COLUMN_WIDTH);
  }
}
