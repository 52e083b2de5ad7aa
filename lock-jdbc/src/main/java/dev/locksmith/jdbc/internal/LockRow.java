package dev.locksmith.jdbc.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.RowMapper;

/**
 * A lock row as {@link LockTableSql#selectRow} reads it, with the database clock's now at the time
 * of reading, so that whether it is held is judged on the database's clock.
 */
public record LockRow(
    @Nullable String owner,
    int holds,
    long version,
    long expiresAt,
    @Nullable String waitingOwner,
    long waitingUntil,
    long now) {

  /** Maps a row of {@link LockTableSql#selectRow} or {@link LockTableSql#selectRowForUpdate}. */
  public static final RowMapper<LockRow> MAPPER =
      (rs, i) ->
          new LockRow(
              rs.getString(1),
              rs.getInt(2),
              rs.getLong(3),
              rs.getLong(4),
              rs.getString(5),
              rs.getLong(6),
              rs.getLong(7));

  /**
   * Maps a row an exclusive acquire returns ({@code owner, version, holds, expires_at, NOW}); it
   * has no waiting-writer mark.
   */
  public static final RowMapper<LockRow> WRITTEN =
      (rs, i) ->
          new LockRow(
              rs.getString(1), rs.getInt(3), rs.getLong(2), rs.getLong(4), null, 0, rs.getLong(5));

  /** Whether an owner holds it and its lease has not run out. */
  public boolean live() {
    return owner != null && expiresAt > now;
  }

  /** How long the lease has left; zero if it ran out. */
  public Duration remaining() {
    return Duration.ofMillis(Math.max(0, expiresAt - now));
  }

  /**
   * Whether a writer other than {@code owner} is marked as waiting, and its mark has not run out.
   */
  public boolean writerWaitsBesides(String owner) {
    return waitingOwner != null && waitingUntil > now && !owner.equals(waitingOwner);
  }
}
