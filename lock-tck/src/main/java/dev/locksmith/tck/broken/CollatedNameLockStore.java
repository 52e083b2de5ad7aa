package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import java.text.Normalizer;
import java.util.Locale;

/**
 * BROKEN ON PURPOSE: lock names are compared the way a case- and accent-insensitive collation with
 * PAD SPACE compares them: {@code A:B}, {@code a:b}, {@code a:b } and {@code á:b} are one lock.
 *
 * <p>It mirrors a JDBC store whose {@code name} primary key lives in MySQL's default collations
 * ({@code utf8mb4_general_ci}, {@code utf8mb4_0900_ai_ci}, or any {@code PAD SPACE} collation), and
 * stores that "normalise" keys with {@code toLowerCase()}. Locks the application keeps apart
 * exclude each other, and one can be released through the other.
 *
 * <p>The kit must fail it on "names that naive key encodings conflate are different locks" (10.3).
 */
public final class CollatedNameLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public CollatedNameLockStore(MemLockSpace space) {
    super(space, "broken/collated-name");
  }

  @Override
  protected LockKey storedKey(LockKey key) {
    // The bug: the key compares as the collation does: no case, no accents, no trailing spaces.
    String collated =
        Normalizer.normalize(key.name(), Normalizer.Form.NFD)
            .replaceAll("\\p{M}", "")
            .toLowerCase(Locale.ROOT)
            .stripTrailing();
    return new LockKey(collated, key.mode());
  }
}
