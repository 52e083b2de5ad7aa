package dev.locksmith.zookeeper.internal;

import dev.locksmith.spi.StoreFailure;
import org.apache.curator.SessionFailRetryLoop;
import org.apache.zookeeper.KeeperException;

/**
 * What kind of failure a ZooKeeper or Curator exception is, from ZooKeeper's error code.
 *
 * <p>A lost connection, an expired or moved session are {@link StoreFailure#UNAVAILABLE}, and so is
 * Curator's own timeout for a connection ({@code CuratorConnectionLossException}, a connection
 * loss); a missing permission (ACL) or failed authentication is {@link StoreFailure#REFUSED}; the
 * server's and the client's request timeouts are {@link StoreFailure#TIMED_OUT}. Anything else is
 * left to the JDK-level {@link StoreFailure#of}.
 */
public final class ZooKeeperFailure {

  private ZooKeeperFailure() {}

  /** The kind of {@code failure}, judged by the first ZooKeeper exception in its cause chain. */
  public static StoreFailure kind(Exception failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SessionFailRetryLoop.SessionFailedException) {
        return StoreFailure.UNAVAILABLE;
      }
      if (t instanceof KeeperException) {
        StoreFailure kind = kind(((KeeperException) t).code());
        if (kind != StoreFailure.UNCLASSIFIED) {
          return kind;
        }
      }
    }
    return StoreFailure.of(failure);
  }

  private static StoreFailure kind(KeeperException.Code code) {
    switch (code) {
      case CONNECTIONLOSS:
      case SESSIONEXPIRED:
      case SESSIONMOVED:
        return StoreFailure.UNAVAILABLE;
      case NOAUTH:
      case AUTHFAILED:
      case SESSIONCLOSEDREQUIRESASLAUTH:
      case QUOTAEXCEEDED:
        return StoreFailure.REFUSED;
      case OPERATIONTIMEOUT:
      case REQUESTTIMEOUT:
        return StoreFailure.TIMED_OUT;
      default:
        return StoreFailure.UNCLASSIFIED;
    }
  }
}
