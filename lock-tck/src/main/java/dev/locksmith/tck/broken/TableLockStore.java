package dev.locksmith.tck.broken;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReadWriteHolds;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.tck.broken.LockTable.HoldRow;
import dev.locksmith.tck.broken.LockTable.LockRow;
import dev.locksmith.tck.broken.LockTable.ReaderRow;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A JDBC-style lock store over a {@link LockTable}: the correct base of the broken table stores,
 * and on its own a store that keeps every promise of the kit (the kit's own tests run it as a
 * positive control, so that each broken subclass fails only for its one wrong statement).
 *
 * <p>It works like {@code lock-jdbc}: a lock's row is taken when it is free or its lease ran out on
 * the database clock, with a new fencing token from the table's sequence as the row's version; the
 * same owner nests; release and extend touch only a live hold of their owner; a released hold's row
 * is deleted (tokens come from the sequence, so they keep rising), and the table's sweep deletes
 * what expired holds left. Readers have rows of their own; a writer that finds readers leaves a
 * waiting mark (with an expiry) that keeps new readers out until it acquires or withdraws. It
 * declares FENCING, REENTRANCY and READ_WRITE, and DURABLE_FENCING when its table is durable. It
 * cannot push releases, so waiters poll.
 *
 * <p>Each statement is a package-private method that a broken subclass may replace with a
 * realistically wrong one.
 */
public class TableLockStore implements LockStore {

  /** The shared database. */
  final LockTable table;

  private final String description;
  private volatile boolean closed;

  /** A connection to {@code table}. */
  public TableLockStore(LockTable table) {
    this(table, "table");
  }

  /** A connection to {@code table}, described as {@code description} in messages. */
  TableLockStore(LockTable table, String description) {
    this.table = Objects.requireNonNull(table, "table must not be null");
    this.description = Objects.requireNonNull(description, "description must not be null");
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public String keyPrefix() {
    return "";
  }

  @Override
  public Set<Capability> promises() {
    Set<Capability> caps = EnumSet.of(Capability.FENCING, Capability.REENTRANCY);
    if (table.isDurable()) {
      caps.add(Capability.DURABLE_FENCING);
    }
    return caps;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    checkOpen();
    long lease = leaseTime.toNanos();
    return table.transaction(
        () -> {
          long now = table.now();
          switch (key.mode()) {
            case EXCLUSIVE:
              return acquireRow(row(LockMode.EXCLUSIVE, key.name()), owner, lease, now);
            case WRITE:
              return acquireWrite(key.name(), owner, lease, now);
            default:
              return acquireRead(key.name(), owner, lease, now);
          }
        });
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    checkOpen();
    long lease = leaseTime.toNanos();
    return table.transaction(
        () -> {
          long now = table.now();
          HoldRow hold = ownedHold(key, owner, now);
          if (hold == null) {
            return false;
          }
          hold.expiresAt = now + lease;
          return true;
        });
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    checkOpen();
    return table.transaction(
        () -> {
          long now = table.now();
          HoldRow hold = ownedHold(key, owner, now);
          if (hold == null) {
            return ReleaseOutcome.NOT_HELD;
          }
          if (--hold.holds > 0) {
            return ReleaseOutcome.HOLD_DECREMENTED;
          }
          endHold(key, owner, now);
          return ReleaseOutcome.RELEASED;
        });
  }

  @Override
  public LockState read(LockKey key) {
    checkOpen();
    return table.transaction(
        () -> {
          long now = table.now();
          if (key.mode() == LockMode.EXCLUSIVE) {
            LockRow row = table.lockRow(kindOf(LockMode.EXCLUSIVE), key.name());
            return row != null && isHeld(row, now) ? stateOf(row, now) : LockState.FREE;
          }
          LockRow writer = table.lockRow(kindOf(LockMode.WRITE), key.name());
          if (writer != null && isHeld(writer, now)) {
            return stateOf(writer, now);
          }
          Map<String, ReaderRow> readers = liveReaders(key.name(), now);
          return readers.isEmpty() ? LockState.FREE : LockState.heldByReaders(readers.size());
        });
  }

  @Override
  public Optional<ReadWriteHolds> readWrite() {
    return Optional.of(this::withdraw);
  }

  private void withdraw(LockKey key, String owner) {
    checkOpen();
    if (key.mode() != LockMode.WRITE) {
      return;
    }
    table.transaction(() -> table.waitingWriters(key.name()).remove(owner));
  }

  @Override
  public void close() {
    closed = true;
  }

  /**
   * Ends every hold of kind {@code mode} on the lock called {@code name} directly in the table, as
   * an operator's {@code UPDATE locks SET owner = NULL} or {@code DELETE FROM lock_readers} would,
   * for the kit's outside actor; the holders find out at their next renewal. It works on a closed
   * connection too (the operator has a connection of their own).
   */
  public void deleteHolds(String name, LockMode mode) {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(mode, "mode must not be null");
    table.transaction(
        () -> {
          if (mode == LockMode.READ) {
            table.readers(name).clear();
            return null;
          }
          LockRow row = table.lockRow(kindOf(mode), name);
          if (row != null) {
            row.owner = null;
            row.holds = 0;
          }
          return null;
        });
  }

  // The statements, each replaceable by a broken subclass.

  /** The {@code kind} column for a mode: exclusive and write locks have rows of their own. */
  String kindOf(LockMode mode) {
    return mode == LockMode.WRITE ? "write" : "exclusive";
  }

  /**
   * Takes {@code row} for {@code owner} if it is free or its lease ran out (a new hold, with the
   * next version as token), nests if {@code owner} holds it, else answers busy.
   */
  Acquisition acquireRow(LockRow row, String owner, long leaseNanos, long now) {
    if (isHeld(row, now)) {
      if (owner.equals(row.owner)) {
        row.holds++;
        row.expiresAt = now + leaseNanos;
        return Acquisition.acquired(row.version, row.holds);
      }
      return Acquisition.busy(Duration.ofNanos(row.expiresAt - now));
    }
    row.owner = owner;
    row.holds = 1;
    row.version = newToken(row);
    row.expiresAt = now + leaseNanos;
    return Acquisition.acquired(row.version, 1);
  }

  /** The token of a new hold on {@code row}: the sequence's next value. */
  long newToken(LockRow row) {
    return table.nextToken();
  }

  /**
   * The token of a new reader while {@code writer} (null if none) does not hold: the sequence's
   * last value, at least the last writer's token, and below every later writer's.
   */
  long readerToken(@Nullable LockRow writer) {
    return table.lastToken();
  }

  /** A write attempt: readers or another writer make it busy and leave a waiting mark. */
  Acquisition acquireWrite(String name, String owner, long leaseNanos, long now) {
    LockRow writer = row(LockMode.WRITE, name);
    Map<String, ReaderRow> readers = liveReaders(name, now);
    Map<String, Long> waiting = liveWaitingWriters(name, now);
    if (isHeld(writer, now) && !owner.equals(writer.owner)) {
      waiting.put(owner, now + leaseNanos);
      return Acquisition.busy(Duration.ofNanos(writer.expiresAt - now));
    }
    if (!isHeld(writer, now) && !readers.isEmpty()) {
      waiting.put(owner, now + leaseNanos);
      long latest = readers.values().stream().mapToLong(r -> r.expiresAt).max().orElse(now);
      return Acquisition.busy(Duration.ofNanos(latest - now));
    }
    waiting.remove(owner);
    return acquireRow(writer, owner, leaseNanos, now);
  }

  /**
   * A read attempt: busy while another owner writes or another writer waits (unless the owner
   * already reads); readers get the write row's version as token.
   */
  Acquisition acquireRead(String name, String owner, long leaseNanos, long now) {
    LockRow writer = table.lockRow(kindOf(LockMode.WRITE), name);
    if (writer != null && isHeld(writer, now) && !owner.equals(writer.owner)) {
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

  /** {@code owner}'s live hold on {@code key}, or null: what extend and release may touch. */
  @Nullable HoldRow ownedHold(LockKey key, String owner, long now) {
    if (key.mode() == LockMode.READ) {
      return liveReaders(key.name(), now).get(owner);
    }
    LockRow row = table.lockRow(kindOf(key.mode()), key.name());
    return row != null && isHeld(row, now) && owner.equals(row.owner) ? row : null;
  }

  /** Ends {@code owner}'s last hold on {@code key}: its row goes. */
  void endHold(LockKey key, String owner, long now) {
    if (key.mode() == LockMode.READ) {
      table.readers(key.name()).remove(owner);
      return;
    }
    table.deleteLockRow(kindOf(key.mode()), key.name());
  }

  /** The readers of {@code name} whose lease has not run out (expired rows are deleted first). */
  Map<String, ReaderRow> liveReaders(String name, long now) {
    Map<String, ReaderRow> readers = table.readers(name);
    readers.values().removeIf(r -> r.expiresAt - now <= 0);
    return readers;
  }

  /** The waiting-writer marks of {@code name} that have not run out. */
  Map<String, Long> liveWaitingWriters(String name, long now) {
    Map<String, Long> waiting = table.waitingWriters(name);
    waiting.values().removeIf(expiresAt -> expiresAt - now <= 0);
    return waiting;
  }

  /** The {@code locks} row of {@code mode} and {@code name}, inserted (free) if missing. */
  LockRow row(LockMode mode, String name) {
    String kind = kindOf(mode);
    LockRow row = table.lockRow(kind, name);
    return row != null ? row : table.insertLockRow(kind, name);
  }

  /** Whether {@code row} has a holder whose lease has not run out. */
  static boolean isHeld(LockRow row, long now) {
    return row.owner != null && row.expiresAt - now > 0;
  }

  static LockState stateOf(LockRow row, long now) {
    // Only for live rows (isHeld), whose owner is set.
    return LockState.heldBy(
        Objects.requireNonNull(row.owner), row.holds, Duration.ofNanos(row.expiresAt - now));
  }

  /** Throws once the connection is closed, as a networked store would. */
  void checkOpen() {
    if (closed) {
      throw new LockStoreException(description + " connection is closed");
    }
  }
}
