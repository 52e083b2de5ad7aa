package dev.locksmith.tck.broken;

import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.broken.LockTable.LockRow;
import dev.locksmith.tck.broken.LockTable.ReaderRow;
import java.time.Duration;
import java.util.Map;

/**
 * BROKEN ON PURPOSE: lock downgrading (the writer may also take the read lock) recognises "the
 * writer" by its client, not its owner: while one lease of a client writes, every read attempt from
 * that client gets in.
 *
 * <p>It mirrors Redisson-style read locks that let a reader in when the write lock's holder is
 * "us", where "us" is the connection id part of the owner ({@code <client>:<thread>} compared up to
 * the colon), ported to an engine whose owners are one per acquire. Two threads of one service then
 * read and write the same data at once.
 *
 * <p>Caught by 8.8: while a writer holds, a read attempt by another owner of the writer's own
 * client is refused. The mixed contention of 8.6 sees it too when that writer happens to hold while
 * that reader asks.
 */
public final class ClientWideDowngradeLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public ClientWideDowngradeLockStore(LockTable table) {
    super(table, "broken/client-wide-downgrade");
  }

  @Override
  Acquisition acquireRead(String name, String owner, long leaseNanos, long now) {
    LockRow writer = table.lockRow(kindOf(LockMode.WRITE), name);
    // The bug: "the writer is us" compares clients (the owner up to its last '/'), not owners.
    if (writer != null && isHeld(writer, now) && !clientOf(owner).equals(clientOf(writer.owner))) {
      return Acquisition.busy(Duration.ofNanos(writer.expiresAt - now));
    }
    Map<String, ReaderRow> readers = liveReaders(name, now);
    ReaderRow mine = readers.get(owner);
    if (mine == null) {
      boolean writerWaits =
          liveWaitingWriters(name, now).keySet().stream().anyMatch(w -> !w.equals(owner));
      if (writerWaits) {
        return Acquisition.busy();
      }
      long token = readerToken(writer);
      readers.put(owner, new ReaderRow(owner, token, now + leaseNanos));
      return Acquisition.acquired(token, 1);
    }
    mine.holds++;
    mine.expiresAt = now + leaseNanos;
    return Acquisition.acquired(mine.token, mine.holds);
  }

  private static String clientOf(String owner) {
    int slash = owner.lastIndexOf('/');
    return slash < 0 ? owner : owner.substring(0, slash);
  }
}
