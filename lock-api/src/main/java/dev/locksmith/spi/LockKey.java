package dev.locksmith.spi;

import java.util.Objects;

/**
 * A lock as a store sees it: its name (already validated by the engine) and the kind of hold.
 *
 * <p>The name is data: a store must pass it as a bound parameter, a script argument or an encoded
 * key, never splice it into code.
 */
public record LockKey(String name, LockMode mode) {

  /** Creates a key; both parts are required. */
  public LockKey {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(mode, "mode");
  }

  /** The exclusive lock called {@code name}. */
  public static LockKey exclusive(String name) {
    return new LockKey(name, LockMode.EXCLUSIVE);
  }

  /** The character that joins a non-empty key prefix and a name in {@link #nameUnder}. */
  public static final char PREFIX_SEPARATOR = '\u001F';

  /**
   * This key's name with {@code prefix} before it, laid out so that two different (prefix, name)
   * pairs never give one string: a non-empty prefix is joined with {@link #PREFIX_SEPARATOR}
   * (U+001F), a control character that neither a name nor a key prefix may contain (the engine
   * refuses both), so the first U+001F ends the prefix and a name without a prefix has none. Plain
   * concatenation would make prefix "a" with name "bc" the same lock as prefix "ab" with name "c".
   * For stores that keep a lock's name as one string (a map key, a table column).
   */
  public String nameUnder(String prefix) {
    return prefix.isEmpty() ? name : prefix + PREFIX_SEPARATOR + name;
  }

  @Override
  public String toString() {
    return mode == LockMode.EXCLUSIVE ? name : name + "[" + mode.name().toLowerCase() + "]";
  }
}
