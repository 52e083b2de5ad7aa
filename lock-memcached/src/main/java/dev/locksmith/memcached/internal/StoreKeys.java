package dev.locksmith.memcached.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Objects;

/**
 * Turns lock names into memcached keys: {@code <prefix>lock:<name>} for the lock item and {@code
 * <prefix>fence:<name>} for its fencing counter.
 *
 * <p>A name made only of printable ASCII other than space and {@code #} is used as it is, when the
 * key fits memcached's 250 bytes; any other name is replaced by {@code #} and the unpadded
 * base64url SHA-256 of its UTF-8 bytes. The {@code #} keeps the two forms apart, so two names never
 * share a key (short of a SHA-256 collision), and the name reaches memcached only as key bytes,
 * never as protocol text.
 */
public final class StoreKeys {

  /** Memcached's longest key, in bytes. */
  public static final int MAX_KEY_BYTES = 250;

  private final String prefix;
  private final String lockHead;
  private final String fenceHead;

  /**
   * Keys under {@code prefix}.
   *
   * @throws IllegalArgumentException if the prefix has characters other than printable ASCII
   *     without space, or is longer than 64 characters
   */
  public StoreKeys(String prefix) {
    Objects.requireNonNull(prefix, "keyPrefix must not be null");
    if (prefix.length() > 64) {
      throw new IllegalArgumentException(
          "keyPrefix must be at most 64 characters, was " + prefix.length());
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (!plain(prefix.charAt(i)) && prefix.charAt(i) != '#') {
        throw new IllegalArgumentException(
            "keyPrefix '"
                + prefix
                + "' has character U+"
                + String.format("%04X", (int) prefix.charAt(i))
                + " at index "
                + i
                + "; memcached keys take printable ASCII without spaces");
      }
    }
    this.prefix = prefix;
    this.lockHead = prefix + "lock:";
    this.fenceHead = prefix + "fence:";
  }

  /** The prefix in force. */
  public String prefix() {
    return prefix;
  }

  /** The key of the lock item of {@code name}. */
  public String lock(String name) {
    return key(lockHead, name);
  }

  /** The key of the fencing counter of {@code name}. */
  public String fence(String name) {
    return key(fenceHead, name);
  }

  private static String key(String head, String name) {
    if (name.length() + head.length() <= MAX_KEY_BYTES && plain(name)) {
      return head + name;
    }
    return head + '#' + digest(name);
  }

  private static boolean plain(String name) {
    for (int i = 0; i < name.length(); i++) {
      if (!plain(name.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean plain(int c) {
    return c > ' ' && c < 0x7f && c != '#';
  }

  private static String digest(String name) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
