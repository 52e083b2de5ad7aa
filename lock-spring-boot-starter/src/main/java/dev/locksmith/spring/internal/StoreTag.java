package dev.locksmith.spring.internal;

import java.util.Locale;

/**
 * The {@code store} tag of Locksmith's meters: the kind of store, a low-cardinality label such as
 * {@code redis}, {@code redis-cluster}, {@code jdbc/h2}, {@code zookeeper}, {@code memcached},
 * {@code etcd} or {@code mem}, never an address.
 */
public final class StoreTag {

  private StoreTag() {}

  /**
   * The tag of the store that describes itself as {@code description} ({@code
   * LockStore.describe()}, which for some stores is an address such as {@code
   * redis://10.0.0.5:6379}): the URI scheme when it is one, else its first word.
   */
  public static String of(String description) {
    String s = description.strip();
    int colon = s.indexOf(':');
    if (colon > 0) {
      s = s.substring(0, colon);
    }
    int space = s.indexOf(' ');
    if (space > 0) {
      s = s.substring(0, space);
    }
    return s.isEmpty() ? "unknown" : s.toLowerCase(Locale.ROOT);
  }
}
