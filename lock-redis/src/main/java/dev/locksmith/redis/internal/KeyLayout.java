package dev.locksmith.redis.internal;

import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import java.util.Objects;

/**
 * Where a lock lives in Redis: the keys and the release channel of a {@link LockKey}, and the
 * shared token counters, for every strategy and mode so that they all see the same data.
 *
 * <p>Every key of one name is {@code PREFIX{ENCODED}:suffix}. The braces are a Redis Cluster hash
 * tag, so the lock and its read-write keys always share one hash slot. The name is encoded ({@code
 * %} → {@code %25}, <code>{</code> → {@code %7B}, <code>}</code> → {@code %7D}) so a name can never
 * end the tag early or collide with another name; the prefix may not contain braces for the same
 * reason. So every key has exactly one pair of braces, and the prefix, the name and the suffix can
 * be read back from it: no two (prefix, name) pairs share a key.
 *
 * <pre>
 *   exclusive:  P{n}:lock     hash {"o:"+owner: holds, "token": t}   PX = lease
 *   read-write: P{n}:rw:write hash like :lock, for the writer
 *               P{n}:rw:read  hash {"h:"+owner: holds, "e:"+owner: expiry ms, "t:"+owner: token}
 *               P{n}:rw:wait  hash {owner: expiry ms} of waiting writers
 *   tokens:     P{}:tokens    one counter per prefix (single node, Sentinel, each Redlock master)
 *               P{tag}:tokens one counter per hash slot on a cluster, tag = {@link SlotTags}
 *   legacy:     P{n}:fence, P{n}:rw:fence  per-name counters of earlier versions: never created,
 *               read and kept in step while they exist
 *   channels:   P{n}:released, P{n}:rw:released
 * </pre>
 *
 * <p>A counter's suffix ({@code tokens}) is no lock key's suffix, so a counter is never the key of
 * some lock name under any prefix. Every key of a lock name is gone once the lock is free (deleted
 * on release, or expired with the lease); only the counters stay, at most one per prefix, or one
 * per hash slot (16,384) on a cluster, however many names were used.
 */
public final class KeyLayout {

  /** The hash field that keeps the token of an exclusive or write hold. */
  public static final String TOKEN_FIELD = "token";

  /** The suffix of a token counter; no lock key ends with it. */
  static final String TOKENS_SUFFIX = "tokens";

  /** Where tokens are drawn: one counter for the prefix, or one per hash slot on a cluster. */
  private enum TokenCounters {
    PER_PREFIX,
    PER_SLOT
  }

  private final String prefix;
  private final TokenCounters counters;
  private final String sharedTokens;

  /**
   * A layout under {@code prefix} with one token counter for the prefix: a single node, a
   * Sentinel-managed master, or one Redlock master.
   *
   * @throws IllegalArgumentException if the prefix contains a brace
   */
  public KeyLayout(String prefix) {
    this(prefix, TokenCounters.PER_PREFIX);
  }

  private KeyLayout(String prefix, TokenCounters counters) {
    Objects.requireNonNull(prefix, "keyPrefix must not be null");
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          "keyPrefix '"
              + prefix
              + "' must not contain '{' or '}': Redis Cluster would hash the prefix instead of the"
              + " lock name");
    }
    this.prefix = prefix;
    this.counters = counters;
    this.sharedTokens = prefix + "{}:" + TOKENS_SUFFIX;
  }

  /**
   * A layout under {@code prefix} for a Redis Cluster: one token counter per hash slot, in the slot
   * of the names it serves (a script may only touch keys of one slot).
   *
   * @throws IllegalArgumentException if the prefix contains a brace
   */
  public static KeyLayout clustered(String prefix) {
    return new KeyLayout(prefix, TokenCounters.PER_SLOT);
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

  /**
   * The counter that tokens of {@code key} are drawn from: the prefix's, or on a cluster the one of
   * the name's hash slot. It never expires; losing it costs nothing (see {@code LockScripts}).
   */
  public String tokensKey(LockKey key) {
    if (counters == TokenCounters.PER_PREFIX) {
      return sharedTokens;
    }
    String tag = SlotTags.of(SlotTags.slotOf(key(key.name(), "lock")));
    return prefix + "{" + tag + "}:" + TOKENS_SUFFIX;
  }

  /**
   * The per-name counter of earlier versions ({@code P{n}:fence}, {@code P{n}:rw:fence}). This
   * version never creates it; while it exists (written by an earlier version, or by an earlier
   * client still running in a rolling upgrade) tokens are drawn above it and written back to it.
   */
  public String legacyFenceKey(LockKey key) {
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

  /** The keys of an exclusive acquire in script order: hold, tokens, legacy fence. */
  public String[] exclusiveKeys(LockKey key) {
    return new String[] {holdKey(key), tokensKey(key), legacyFenceKey(key)};
  }

  /** The keys of a read-write acquire in script order: write, read, wait, tokens, legacy fence. */
  public String[] readWriteKeys(LockKey key) {
    return new String[] {
      holdKey(key), readersKey(key), waitingKey(key), tokensKey(key), legacyFenceKey(key)
    };
  }

  /** The hash field of an owner in a hold hash. */
  public static String ownerField(String owner) {
    return "o:" + owner;
  }
}
