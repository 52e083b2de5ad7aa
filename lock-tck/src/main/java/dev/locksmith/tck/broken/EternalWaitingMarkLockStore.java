package dev.locksmith.tck.broken;

import java.util.Map;

/**
 * BROKEN ON PURPOSE: the marks that waiting writers leave (to keep new readers out) have no expiry:
 * only the writer's acquire or withdraw removes one, so a writer that dies while waiting keeps new
 * readers out for ever.
 *
 * <p>It mirrors a {@code lock_waiting_writers(name, owner)} table without an {@code expires_at}
 * column, and Redis read-write locks that {@code SADD} waiting writers to a set with no TTL. The
 * engine withdraws a writer that gives up, so the mark only outlives its writer when the writer's
 * process dies mid-wait; then every new reader of that lock waits until someone deletes the mark by
 * hand.
 *
 * <p>Caught by 12.14: a write attempt that found a reader and never withdraws (its writer died)
 * keeps new readers out no longer than its lease plus the slack.
 */
public final class EternalWaitingMarkLockStore extends TableLockStore {

  /** A connection to {@code table}. */
  public EternalWaitingMarkLockStore(LockTable table) {
    super(table, "broken/eternal-waiting-mark");
  }

  @Override
  Map<String, Long> liveWaitingWriters(String name, long now) {
    return table.waitingWriters(name); // The bug: marks are never judged by their expiry.
  }
}
