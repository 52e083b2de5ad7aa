package dev.locksmith;

import java.util.Set;

/**
 * No lock provider on the class path (or module path) handles the scheme of the URI given to {@link
 * LockClient#open(String)}.
 *
 * <p>The message lists the schemes that were found, so a missing dependency (say, {@code
 * lock-redis} for {@code redis://}) is easy to spot.
 */
public class UnsupportedLockUriException extends LockException {
  private static final long serialVersionUID = 1L;

  private final String scheme;
  private final Set<String> knownSchemes;

  /** Creates an exception for {@code scheme}, listing the {@code knownSchemes} that were found. */
  public UnsupportedLockUriException(String scheme, Set<String> knownSchemes) {
    super(
        "no lock provider for URI scheme '"
            + scheme
            + "'; schemes on the class path: "
            + (knownSchemes.isEmpty() ? "(none)" : String.join(", ", knownSchemes))
            + ". Add the store module (lock-redis, lock-memcached, lock-zookeeper, lock-jdbc) that"
            + " handles it.");
    this.scheme = scheme;
    this.knownSchemes = Set.copyOf(knownSchemes);
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
