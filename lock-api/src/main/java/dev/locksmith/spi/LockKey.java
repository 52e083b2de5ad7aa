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

  @Override
  public String toString() {
    return mode == LockMode.EXCLUSIVE ? name : name + "[" + mode.name().toLowerCase() + "]";
  }
}
