package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import java.nio.charset.StandardCharsets;

/**
 * BROKEN ON PURPOSE: lock names are stored in Latin-1, so every character outside it becomes {@code
 * ?} and names that differ only there are one lock: {@code 订单:1} and {@code 库存:1} both become
 * {@code ??:1}.
 *
 * <p>It mirrors a JDBC store on a MySQL table in the {@code latin1} character set (MySQL's default
 * before 8.0) or a connection without {@code characterEncoding=UTF-8}, and code that builds keys
 * with {@code name.getBytes(ISO_8859_1)}. Latin-1 names (ASCII, {@code é}, {@code ü}) keep working,
 * so the store looks fine until two names in another script meet.
 *
 * <p>Caught by 10.3, whose names include pairs that differ only outside Latin-1 ({@code 订单} and
 * {@code 库存}, {@code 🔒} and {@code 😀}).
 */
public final class Latin1NameLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public Latin1NameLockStore(MemLockSpace space) {
    super(space, "broken/latin1-name");
  }

  @Override
  protected LockKey storedKey(LockKey key) {
    // The bug: unmappable characters are replaced with '?' on the way into the column.
    String stored =
        new String(key.name().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1);
    return new LockKey(stored, key.mode());
  }
}
