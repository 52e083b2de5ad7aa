package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.broken.LockTable.LockRow;
import java.time.Duration;

/**
 * BROKEN ON PURPOSE: a write attempt checks only for another writer, not for readers: a writer gets
 * in while readers hold the lock (readers still keep out of a held write lock).
 *
 * <p>It mirrors a read-write lock whose write path is the exclusive lock's statement ({@code SET
 * write-key NX}, {@code INSERT … ON CONFLICT DO NOTHING} on the writer row) with the reader count
 * never consulted: the write side was written first and the read side added later, checking the
 * writer but not being checked by it. Readers see data change under them.
 *
 * <p>The kit must fail it on every rule in which a writer is a reader's rival: the [kind] rules for
 * the read kind, whose rival takes the lock while the reader still holds (2.1, 2.2, 3.1, 3.3, 3.7,
 * 3.8, 4.1, 12.2, 12.4, 12.10), and the read-write rules, where writers get in behind readers or
 * overlap them (8.2, 8.3, 8.4, 8.6, 8.7, 12.12).
 */
public final class WriterIgnoresReadersLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public WriterIgnoresReadersLockStore(LockTable table) {
    super(table, "broken/writer-ignores-readers");
  }

  @Override
  Acquisition acquireWrite(String name, String owner, long leaseNanos, long now) {
    LockRow writer = row(LockMode.WRITE, name);
    if (isHeld(writer, now) && !owner.equals(writer.owner)) {
      return Acquisition.busy(Duration.ofNanos(writer.expiresAt - now));
    }
    // The bug: the readers' rows are never looked at.
    return acquireRow(writer, owner, leaseNanos, now);
  }
}
