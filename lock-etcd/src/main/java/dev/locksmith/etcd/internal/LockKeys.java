package dev.locksmith.etcd.internal;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The etcd key of a lock: {@code <prefix>lock/<name>}, in UTF-8.
 *
 * <p><b>Keys of different prefixes never collide.</b> A prefix may not contain {@code lock/} (the
 * constructor refuses it); then the first {@code lock/} in a key starts exactly where the prefix
 * ends, so the key tells its prefix (the text before that {@code lock/}) and its name (the text
 * after it), and two keys are equal only with equal prefix and name:
 *
 * <ol>
 *   <li>No {@code lock/} lies wholly inside the prefix (refused).
 *   <li>None starts inside the prefix and runs past its end: the text after the prefix is {@code
 *       lock/}, so a proper suffix of {@code lock/} would have to start with {@code l}, and none of
 *       {@code ock/}, {@code ck/}, {@code k/}, {@code /} does.
 *   <li>The name may contain {@code lock/}, but only after the first one.
 *   <li>In UTF-8 the bytes of {@code lock/} are ASCII, and the bytes of a multi-byte character
 *       never are, so the same holds byte for byte.
 * </ol>
 *
 * <p>Without the refusal, {@code keyPrefix=p/} with the name {@code x/lock/y} and {@code
 * keyPrefix=p/lock/x/} with the name {@code y} were one key, and so one lock: any prefix containing
 * {@code lock/} collides with the shorter prefix before it. Refusing such prefixes keeps every key
 * an allowed prefix had before, so clients of earlier versions and of this one share their locks.
 */
public final class LockKeys {

  /** The separator between prefix and name, which a prefix may not contain. */
  public static final String SEPARATOR = "lock/";

  private final String head;

  /**
   * Keys under {@code prefix}.
   *
   * @throws IllegalArgumentException if the prefix contains {@code lock/}
   */
  public LockKeys(String prefix) {
    requireUsable(prefix);
    this.head = prefix + SEPARATOR;
  }

  /**
   * Checks that {@code prefix} lays out keys no other prefix can produce.
   *
   * @throws IllegalArgumentException naming the prefix and the separator it contains
   */
  public static void requireUsable(String prefix) {
    Objects.requireNonNull(prefix, "keyPrefix must not be null");
    if (prefix.contains(SEPARATOR)) {
      throw new IllegalArgumentException(
          "keyPrefix '"
              + prefix
              + "' contains '"
              + SEPARATOR
              + "', the separator of the etcd key layout <prefix>lock/<name>: its keys could be"
              + " those of another prefix (prefix 'p/lock/x/' with name 'y' is prefix 'p/' with"
              + " name 'x/lock/y'); choose a prefix without 'lock/'");
    }
  }

  /** The key of the lock called {@code name}. */
  public byte[] lock(String name) {
    return (head + name).getBytes(StandardCharsets.UTF_8);
  }
}
