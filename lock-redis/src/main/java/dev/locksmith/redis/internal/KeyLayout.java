package dev.locksmith.redis.internal;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import java.util.Objects;

/**
 * Where a lock lives in Redis: the keys and the release channel of a {@link LockKey}, shared by
 * every strategy and mode so that they all see the same data.
 *
 * <p>Every key of one name is {@code PREFIX{ENCODED}:suffix}. The braces are a Redis Cluster hash
 * tag, so the lock, its fence counter and its read-write keys always share one hash slot. The name
 * is encoded ({@code %} → {@code %25}, <code>{</code> → {@code %7B}, <code>}</code> → {@code %7D})
 * so a name can never end the tag early or collide with another name; the prefix may not contain
 * braces for the same reason.
 *
 * <pre>
 *   exclusive:  P{n}:lock     hash {"o:"+owner: holds, "token": t}   PX = lease
 *               P{n}:fence    counter, never expires
 *   read-write: P{n}:rw:write hash like :lock, for the writer
 *               P{n}:rw:read  hash {"h:"+owner: holds, "e:"+owner: expiry ms, "t:"+owner: token}
 *               P{n}:rw:wait  hash {owner: expiry ms} of waiting writers
 *               P{n}:rw:fence counter, never expires
 *   channels:   P{n}:released, P{n}:rw:released
 * </pre>
 */
public final class KeyLayout {

  /** The hash field that keeps the token of an exclusive or write hold. */
  public static final String TOKEN_FIELD = "token";

  private final String prefix;

  /**
   * A layout under {@code prefix}.
   *
   * @throws IllegalArgumentException if the prefix contains a brace
   */
  public KeyLayout(String prefix) {
    Objects.requireNonNull(prefix, "keyPrefix must not be null");
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          "keyPrefix '"
              + prefix
              + "' must not contain '{' or '}': Redis Cluster would hash the prefix instead of the"
              + " lock name");
    }
    this.prefix = prefix;
  }

  /** The prefix of every key. */
  public String prefix() {
    return prefix;
  }

  /** The name as it appears between the braces. */
  public static String encode(String name) {
    // Most names need no escape: no copy for them (this runs twice per acquire and per release).
    if (name.indexOf('%') < 0 && name.indexOf('{') < 0 && name.indexOf('}') < 0) {
      return name;
    }
    StringBuilder sb = new StringBuilder(name.length() + 8);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      switch (c) {
        case '%':
          sb.append("%25");
          break;
        case '{':
          sb.append("%7B");
          break;
        case '}':
          sb.append("%7D");
          break;
        default:
          sb.append(c);
      }
    }
    return sb.toString();
  }

  private String key(String name, String suffix) {
    return prefix + "{" + encode(name) + "}:" + suffix;
  }

  /** The hash of an exclusive hold or of the writer of a read-write lock. */
  public String holdKey(LockKey key) {
    return key.mode() == LockMode.EXCLUSIVE ? key(key.name(), "lock") : key(key.name(), "rw:write");
  }

  /** The per-name counter of fencing tokens; it never expires. */
  public String fenceKey(LockKey key) {
    return key.mode() == LockMode.EXCLUSIVE
        ? key(key.name(), "fence")
        : key(key.name(), "rw:fence");
  }

  /** The readers hash of a read-write lock. */
  public String readersKey(LockKey key) {
    return key(key.name(), "rw:read");
  }

  /** The waiting-writers hash of a read-write lock. */
  public String waitingKey(LockKey key) {
    return key(key.name(), "rw:wait");
  }

  /** The channel a release of {@code key} is published on. */
  public String channel(LockKey key) {
    return key.mode() == LockMode.EXCLUSIVE
        ? key(key.name(), "released")
        : key(key.name(), "rw:released");
  }

  /** The keys of a read-write lock in script order: write, read, wait, fence. */
  public String[] readWriteKeys(LockKey key) {
    return new String[] {holdKey(key), readersKey(key), waitingKey(key), fenceKey(key)};
  }

  /** The hash field of an owner in a hold hash. */
  public static String ownerField(String owner) {
    return "o:" + owner;
  }
}
