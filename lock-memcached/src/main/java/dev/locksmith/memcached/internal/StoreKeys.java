package dev.locksmith.memcached.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Turns lock names into memcached keys: {@code <prefix>lock:<name>} for the lock item, {@code
 * <prefix>fence#<n>} for the fencing counters the names share (one per server, {@link
 * FencingCounter}), and {@code <prefix>fence:<name>}, the per-name counter of earlier versions,
 * which the store only reads and deletes ({@link #legacyFence}).
 *
 * <p>A name made only of printable ASCII other than space and {@code #} is used as it is, when the
 * key fits memcached's 250 bytes; any other name is replaced by {@code #} and the unpadded
 * base64url SHA-256 of its UTF-8 bytes. The {@code #} keeps the two forms apart, so two names never
 * share a key (short of a SHA-256 collision), and the name reaches memcached only as key bytes,
 * never as protocol text.
 *
 * <p><b>Keys of different prefixes never collide.</b> A prefix may not contain {@code lock:} or
 * {@code fence:} (the constructor refuses it), and then every key names its prefix, its kind and
 * its name or counter unambiguously. Call the two strings {@code lock:} and {@code fence:} the
 * markers, and let K be a key laid out from an allowed prefix p:
 *
 * <ol>
 *   <li>No marker occurs in K starting inside p: not wholly inside p (refused), and not across the
 *       end of p either, since that would need a proper suffix of one marker to be a prefix of the
 *       text that follows p ({@code lock:}, {@code fence:} or {@code fence#}, all starting with
 *       {@code l} or {@code f}), and no proper suffix of {@code lock:} or {@code fence:} starts
 *       with {@code l} or {@code f}.
 *   <li>So in a lock key {@code p + "lock:" + N} and in a per-name counter key {@code p + "fence:"
 *       + N}, the first marker occurrence starts exactly at the end of p: that marker tells the
 *       kind, the text before it is p, the text after it is N (which may itself contain markers:
 *       only the first occurrence counts). Two such keys are equal only with equal kind, p and N.
 *   <li>A shared counter key {@code p + "fence#" + digits} contains no marker at all (p has none,
 *       none crosses its end by 1., and {@code fence#} followed by digits holds none), so it equals
 *       no lock or per-name counter key; and its last {@code fence#} starts at the end of p, so two
 *       equal counter keys have equal p and digits.
 *   <li>N is the name itself or {@code #} + digest, and a plain name has no {@code #}: equal N
 *       means equal names.
 * </ol>
 *
 * <p>Without the refusal, prefix {@code p:} with name {@code x:lock:y} and prefix {@code p:lock:x:}
 * with name {@code y} were one key, and so one lock: any prefix containing {@code lock:} collides
 * with the shorter prefix before it. Refusing such prefixes keeps every key that an allowed prefix
 * had before, so clients of earlier versions and of this one keep sharing their locks.
 */
public final class StoreKeys {

  /** Memcached's longest key, in bytes. */
  public static final int MAX_KEY_BYTES = 250;

  /** Text a prefix may not contain: the separators of the key layout. */
  public static final List<String> SEPARATORS = List.of("lock:", "fence:");

  private final String prefix;
  private final String lockHead;
  private final String legacyFenceHead;
  private final String counterHead;

  /**
   * Keys under {@code prefix}.
   *
   * @throws IllegalArgumentException if the prefix has characters other than printable ASCII
   *     without space, is longer than 64 characters, or contains {@code lock:} or {@code fence:}
   */
  public StoreKeys(String prefix) {
    requireUsable(prefix);
    this.prefix = prefix;
    this.lockHead = prefix + "lock:";
    this.legacyFenceHead = prefix + "fence:";
    this.counterHead = prefix + "fence#";
  }

  /**
   * Checks that {@code prefix} can lay out keys, before anything connects.
   *
   * @throws IllegalArgumentException naming the problem, as the constructor
   */
  public static void requireUsable(String prefix) {
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
    for (String separator : SEPARATORS) {
      if (prefix.contains(separator)) {
        throw new IllegalArgumentException(
            "keyPrefix '"
                + prefix
                + "' contains '"
                + separator
                + "', a separator of the memcached key layout (<prefix>lock:<name>,"
                + " <prefix>fence:<name>): its keys could be those of another prefix (prefix"
                + " 'p:lock:x:' with name 'y' is prefix 'p:' with name 'x:lock:y'); choose a"
                + " prefix without 'lock:' and 'fence:'");
      }
    }
  }

  /** The prefix in force. */
  public String prefix() {
    return prefix;
  }

  /** The key of the lock item of {@code name}. */
  public String lock(String name) {
    return key(lockHead, name);
  }

  /**
   * The key of the per-name fencing counter that versions before the shared counters kept for
   * {@code name}: read and deleted while clients of both versions may run, never created.
   */
  public String legacyFence(String name) {
    return key(legacyFenceHead, name);
  }

  /** The key of shared fencing counter number {@code index} (not negative). */
  public String counter(int index) {
    if (index < 0) {
      throw new IllegalArgumentException("counter index must not be negative, was " + index);
    }
    return counterHead + index;
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
