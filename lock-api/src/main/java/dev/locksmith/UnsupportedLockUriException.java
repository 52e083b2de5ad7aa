package dev.locksmith;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * No lock provider on the class path (or module path) handles the scheme of the URI given to {@link
 * LockClient#open(String)}.
 *
 * <p>The message lists the schemes that were found and, for one of Locksmith's own schemes, names
 * the module that serves it (say, {@code lock-etcd} for {@code etcd://}).
 */
public class UnsupportedLockUriException extends LockException {
  private static final long serialVersionUID = 1L;

  private final String scheme;
  private final Set<String> knownSchemes;

  /**
   * The Locksmith module that serves each of Locksmith's own schemes, for the message: a user who
   * opened {@code etcd://} without {@code lock-etcd} is told to add it. (A test of the CLI, which
   * has every store module, checks it against the providers.)
   */
  private static final Map<String, String> MODULES = modules();

  private static Map<String, String> modules() {
    Map<String, String> m = new TreeMap<>();
    for (String s :
        List.of(
            "redis",
            "rediss",
            "redis-socket",
            "redis-sentinel",
            "rediss-sentinel",
            "redis-cluster",
            "rediss-cluster",
            "redlock",
            "redlocks")) {
      m.put(s, "lock-redis");
    }
    m.put("memcached", "lock-memcached");
    m.put("zookeeper", "lock-zookeeper");
    m.put("etcd", "lock-etcd");
    m.put("etcds", "lock-etcd");
    m.put("jdbc", "lock-jdbc");
    m.put("mem", "lock-api");
    return Map.copyOf(m);
  }

  /** Creates an exception for {@code scheme}, listing the {@code knownSchemes} that were found. */
  public UnsupportedLockUriException(String scheme, Set<String> knownSchemes) {
    super(
        "no lock provider for URI scheme '"
            + scheme
            + "'; schemes on the class path: "
            + (knownSchemes.isEmpty() ? "(none)" : String.join(", ", knownSchemes))
            + ". "
            + advice(scheme));
    this.scheme = scheme;
    this.knownSchemes = Set.copyOf(knownSchemes);
  }

  private static String advice(String scheme) {
    String module = MODULES.get(scheme);
    if (module != null) {
      return "Add dev.locksmith:"
          + module
          + ", which serves "
          + scheme
          + ":"
          + (module.equals("lock-jdbc") ? ", and the database's JDBC driver." : ".");
    }
    return "Locksmith's store modules are lock-redis, lock-memcached, lock-zookeeper, lock-etcd"
        + " and lock-jdbc; a store of your own registers a dev.locksmith.spi.LockProvider.";
  }

  /**
   * The Locksmith module that serves {@code scheme}, such as {@code lock-etcd} for {@code etcd};
   * empty for a scheme that is not one of Locksmith's own.
   */
  public static java.util.Optional<String> moduleFor(String scheme) {
    return java.util.Optional.ofNullable(MODULES.get(scheme));
  }

  /** The scheme that no provider handles. */
  public String scheme() {
    return scheme;
  }

  /** The schemes the providers that were found do handle. */
  public Set<String> knownSchemes() {
    return knownSchemes;
  }
}
