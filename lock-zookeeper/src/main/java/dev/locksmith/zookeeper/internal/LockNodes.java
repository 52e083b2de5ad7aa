package dev.locksmith.zookeeper.internal;

import dev.locksmith.spi.LockMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.curator.utils.PathUtils;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

/**
 * How lock names and queue nodes are laid out in ZooKeeper.
 *
 * <p>A lock called {@code name} of a store without a key prefix lives under {@code base/<encoded
 * name>}; with a key prefix, under {@code base/<encoded prefix>+/<encoded name>}: the prefix is a
 * path component of its own, and its {@code +} (which {@link #encode} never leaves in a name) keeps
 * it apart from every lock of the store without a prefix, so no two (prefix, name) pairs share a
 * lock. Its queue is the ephemeral sequential children {@code lock-N} (exclusive lock), {@code
 * read-N} and {@code write-N} (read-write lock). Exclusive and read-write nodes share the parent
 * and its sequence counter but never look at each other's nodes, so the two locks of one name are
 * independent. Curator's protection prefix ({@code _c_<uuid>-}) may precede the kind. Every node
 * and parent a store creates carries its ACL list, if it has one.
 */
public final class LockNodes {

  /** The kind prefix of exclusive lock nodes. */
  public static final String EXCLUSIVE = "lock-";

  /** The kind prefix of read nodes. */
  public static final String READ = "read-";

  /** The kind prefix of write nodes. */
  public static final String WRITE = "write-";

  private static final int SEQUENCE_DIGITS = 10;

  /**
   * What ends the path component of a key prefix: a character that {@link #encode} always encodes,
   * so that no lock name's component can end with it.
   */
  public static final String PREFIX_MARK = "+";

  /** The tree the ZooKeeper server keeps for itself. */
  private static final String RESERVED_TREE = "/zookeeper";

  private LockNodes() {}

  /**
   * Checks that {@code basePath} can be the parent of a store's locks.
   *
   * @return {@code basePath}
   * @throws IllegalArgumentException if it is not a valid absolute ZooKeeper path, is the root, or
   *     lies in the server's reserved tree {@code /zookeeper}
   */
  public static String checkBasePath(String basePath) {
    Objects.requireNonNull(basePath, "basePath must not be null");
    try {
      PathUtils.validatePath(basePath);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "basePath '" + basePath + "' is not a valid ZooKeeper path: " + e.getMessage(), e);
    }
    if (basePath.equals("/")) {
      throw new IllegalArgumentException("basePath must not be the root '/'; use e.g. /locks");
    }
    // The server keeps its own data there (quotas, the dynamic configuration) and refuses or
    // restricts writes: locks there would fail on every acquire, so refuse them up front.
    if (basePath.equals(RESERVED_TREE) || basePath.startsWith(RESERVED_TREE + "/")) {
      throw new IllegalArgumentException(
          "basePath '"
              + basePath
              + "' is inside "
              + RESERVED_TREE
              + ", the tree the ZooKeeper server keeps reserved for itself; use e.g. /locks");
    }
    return basePath;
  }

  /**
   * An unmodifiable copy of {@code acl}, for the nodes of a store.
   *
   * @throws NullPointerException if it is or holds null
   * @throws IllegalArgumentException if it is empty
   */
  public static List<ACL> checkAcl(List<ACL> acl) {
    Objects.requireNonNull(acl, "acl must not be null");
    if (acl.isEmpty()) {
      throw new IllegalArgumentException("acl must not be empty");
    }
    for (ACL a : acl) {
      Objects.requireNonNull(a, "acl must not contain null");
    }
    return List.copyOf(acl);
  }

  /**
   * The parent of the locks of a store at {@code basePath} with {@code keyPrefix}: the base path
   * itself for the empty prefix, else {@code basePath/<encoded prefix>+}.
   */
  public static String prefixPath(String basePath, String keyPrefix) {
    return keyPrefix.isEmpty() ? basePath : basePath + "/" + encode(keyPrefix) + PREFIX_MARK;
  }

  /** Whether the child {@code component} of a base path holds the locks of a key prefix. */
  public static boolean isPrefixComponent(String component) {
    return component.endsWith(PREFIX_MARK);
  }

  /** The node kind prefix for {@code mode}. */
  public static String kindOf(LockMode mode) {
    switch (mode) {
      case EXCLUSIVE:
        return EXCLUSIVE;
      case READ:
        return READ;
      default:
        return WRITE;
    }
  }

  /**
   * Encodes {@code name} as one path component: UTF-8 bytes outside {@code [A-Za-z0-9._~-]} become
   * {@code %XX}, so that slashes, control-like and reserved characters never reach a path, and a
   * name of only dots (which ZooKeeper refuses as a component) has its dots encoded too.
   */
  public static String encode(String name) {
    if (isPlain(name)) {
      return name; // The common case, on every operation: no copy.
    }
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    boolean onlyDots = !name.isEmpty() && name.chars().allMatch(c -> c == '.');
    StringBuilder sb = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xff;
      boolean plain =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '~'
              || (c == '.' && !onlyDots);
      if (plain) {
        sb.append((char) c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        sb.append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return sb.toString();
  }

  /** Whether {@code name} encodes to itself: only unreserved ASCII, and not only dots. */
  private static boolean isPlain(String name) {
    boolean onlyDots = true;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean plain =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '~'
              || c == '.';
      if (!plain) {
        return false;
      }
      onlyDots &= c == '.';
    }
    return !onlyDots;
  }

  /**
   * The owner tag put in a node's name: 16 hex digits of the SHA-256 of the owner id, so that a
   * waiter can tell which earlier nodes belong to its own owner without reading them (a match is
   * confirmed from the node's data).
   */
  public static String ownerTag(String owner) {
    // A clone of a ready digest skips the provider look-up that getInstance does on every call.
    java.security.MessageDigest digest;
    try {
      digest = (java.security.MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      digest = sha256(); // A provider whose digest cannot be cloned: look it up each time.
    }
    byte[] d = digest.digest(owner.getBytes(StandardCharsets.UTF_8));
    StringBuilder sb = new StringBuilder(16);
    for (int i = 0; i < 8; i++) {
      sb.append(Character.forDigit((d[i] >> 4) & 0xf, 16))
          .append(Character.forDigit(d[i] & 0xf, 16));
    }
    return sb.toString();
  }

  private static final java.security.MessageDigest SHA_256 = sha256();

  private static java.security.MessageDigest sha256() {
    try {
      return java.security.MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The name prefix (before the sequence number) of a node of {@code mode} for {@code owner}. */
  public static String prefix(LockMode mode, String owner) {
    return kindOf(mode) + ownerTag(owner) + "-";
  }

  /** A queue node: its child name, kind prefix, owner tag and sequence number. */
  public record QueueNode(String name, String kind, String ownerTag, long sequence) {

    /** Whether this is a write node. */
    public boolean isWrite() {
      return WRITE.equals(kind);
    }
  }

  /** Parses a child name, or returns null if it is not a queue node. */
  public static @Nullable QueueNode parse(String child) {
    int len = child.length();
    if (len <= SEQUENCE_DIGITS) {
      return null;
    }
    String digits = child.substring(len - SEQUENCE_DIGITS);
    long sequence;
    try {
      sequence = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return null;
    }
    // [_c_<uuid>-]<kind><16 hex owner tag>-<10 digit sequence>
    int tagEnd = len - SEQUENCE_DIGITS - 1;
    int tagStart = tagEnd - 16;
    if (tagStart < 0 || child.charAt(tagEnd) != '-') {
      return null;
    }
    String tag = child.substring(tagStart, tagEnd);
    String head = child.substring(0, tagStart);
    for (String kind : new String[] {EXCLUSIVE, READ, WRITE}) {
      if (head.endsWith(kind)) {
        return new QueueNode(child, kind, tag, sequence);
      }
    }
    return null;
  }

  /**
   * The queue of one lock, in sequence order: the exclusive nodes for {@link LockMode#EXCLUSIVE},
   * the read and write nodes otherwise.
   */
  public static List<QueueNode> queue(List<String> children, LockMode mode) {
    boolean exclusive = mode == LockMode.EXCLUSIVE;
    List<QueueNode> queue = new ArrayList<>();
    for (String child : children) {
      QueueNode node = parse(child);
      if (node != null && EXCLUSIVE.equals(node.kind()) == exclusive) {
        queue.add(node);
      }
    }
    queue.sort(Comparator.comparingLong(QueueNode::sequence));
    return queue;
  }
}
