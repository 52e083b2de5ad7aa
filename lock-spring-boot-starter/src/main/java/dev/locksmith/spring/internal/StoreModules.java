package dev.locksmith.spring.internal;

import java.util.Locale;
import java.util.Map;

/** Which Locksmith module serves which URI scheme, for the hint in a startup failure. */
public final class StoreModules {

  private static final Map<String, String> MODULES =
      Map.of(
          "jdbc", "lock-jdbc",
          "zookeeper", "lock-zookeeper",
          "memcached", "lock-memcached",
          "etcd", "lock-etcd",
          "etcds", "lock-etcd");

  private StoreModules() {}

  /**
   * "; add dev.locksmith:lock-jdbc (its version comes from lock-bom)" for a {@code jdbc:} URI, and
   * so on; empty for schemes the starter serves itself or does not know.
   */
  public static String hint(String uri) {
    int colon = uri.indexOf(':');
    String scheme = colon < 0 ? uri : uri.substring(0, colon).toLowerCase(Locale.ROOT);
    String module = MODULES.get(scheme);
    return module == null
        ? ""
        : "; if the "
            + scheme
            + " store is what you want, add the dependency dev.locksmith:"
            + module
            + " (its version comes from lock-bom)";
  }
}
