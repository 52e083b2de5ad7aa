package dev.locksmith.cli.internal;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.UnsupportedLockUriException;
import dev.locksmith.spi.LockUri;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A live store given by URI, checked before any work: its URI parses, a provider serves its scheme
 * and knows its options, the store answers, and it grants and releases a lock. So a typo is a usage
 * error and an unreachable or refusing store (a ZooKeeper ACL that denies this identity) one line,
 * before a comparison or the kit runs into it rule after rule.
 */
public final class StoreCheck {

  /** Why the store cannot be used: a usage error (the URI) or the store (it cannot be used). */
  public static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean usage;

    private Failure(boolean usage, String message, Throwable cause) {
      super(message, cause);
      this.usage = usage;
    }

    /** The URI is at fault: malformed, an unknown scheme or option, a missing JDBC driver. */
    static Failure ofUri(String message, Throwable cause) {
      return new Failure(true, message, cause);
    }

    /** The store is at fault: it cannot be reached, or it refuses to lock. */
    static Failure ofStore(String message, Throwable cause) {
      return new Failure(false, message, cause);
    }

    /** Whether the URI is at fault (exit 2) rather than the store (exit 3). */
    public boolean usage() {
      return usage;
    }
  }

  private StoreCheck() {}

  /**
   * Opens a client on {@code uri} and takes and releases a lock of a name of its own with it.
   *
   * @return the open client, for the caller to close
   * @throws NullPointerException if {@code uri} is null
   * @throws Failure if the URI is bad (malformed, an unknown scheme or option, a missing JDBC
   *     driver: {@link Failure#usage()}), or if the store cannot be reached or refuses the lock
   */
  public static LockClient open(String uri) throws Failure {
    Objects.requireNonNull(uri, "uri must not be null");
    String shown = LockUri.redact(uri);
    LockClient client;
    try {
      client = LockClient.open(uri);
    } catch (IllegalArgumentException | UnsupportedLockUriException e) {
      // A missing JDBC driver lands here too: a packaging problem, not an unreachable store.
      throw Failure.ofUri("bad URI: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw Failure.ofStore("cannot reach " + shown + ": " + e.getMessage(), e);
    }
    try {
      Optional<Lease> lease = client.lock("locksmith-check:" + UUID.randomUUID()).tryAcquire();
      lease.ifPresent(Lease::release);
      return client;
    } catch (LockStoreException e) {
      client.close();
      throw Failure.ofStore("cannot lock on " + shown + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // Not the store's answer but a fault of its own: the kit or the comparison reports it.
      return client;
    }
  }
}
