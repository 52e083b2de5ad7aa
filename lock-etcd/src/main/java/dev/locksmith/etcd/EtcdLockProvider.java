package dev.locksmith.etcd;

import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.etcd.internal.EtcdGateway;
import dev.locksmith.etcd.internal.LockKeys;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Opens {@link EtcdLockStore}s for {@code etcd://host[:port][,host[:port]]…[?options]}, and {@code
 * etcds://…} for etcd behind TLS (trusted by the JVM's default trust store).
 *
 * <p>The port defaults to 2379; IPv6 hosts go in brackets ({@code etcd://[::1]:2379}). List several
 * members of one cluster to fail over between them. Options besides the common ones of {@link
 * LockOptions}: {@code operationTimeout} (default {@code 1s}: how long one request to one member
 * may take before it fails with {@link LockStoreException}). {@code keyPrefix} defaults to {@value
 * EtcdLockStore#DEFAULT_KEY_PREFIX}; a prefix containing {@code lock/} is refused with {@link
 * IllegalArgumentException} (its keys could be another prefix's). A cluster with authentication on
 * takes its user and password from the URI's user info ({@code etcd://user:password@host}).
 *
 * <p>{@link #open} talks to the cluster once (it grants and revokes a probe lease, to learn the
 * server's shortest lease) and fails with {@link LockStoreException} naming every member and why it
 * did not answer. A member that goes away later is skipped; the client recovers by itself once a
 * member answers again.
 */
public final class EtcdLockProvider implements LockProvider {

  /** The option that sets the per-request timeout. */
  public static final String OPERATION_TIMEOUT = LockUri.OPERATION_TIMEOUT;

  /** The port used when a host has none. */
  public static final int DEFAULT_PORT = 2379;

  @Override
  public Set<String> schemes() {
    return Set.of("etcd", "etcds");
  }

  @Override
  public Set<String> options() {
    return Set.of(OPERATION_TIMEOUT);
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    List<String> members = members(uri);
    EtcdGateway.Credentials credentials = credentials(uri);
    Duration timeout = uri.operationTimeout(Duration.ofSeconds(1));
    String prefix = options.keyPrefix().orElse(EtcdLockStore.DEFAULT_KEY_PREFIX);
    // An unusable prefix is refused before anything connects.
    LockKeys.requireUsable(prefix);
    String description = uri.scheme() + "://" + String.join(",", members);
    EtcdGateway gateway =
        new EtcdGateway(
            members,
            uri.scheme().equals("etcds") ? EtcdGateway.Scheme.HTTPS : EtcdGateway.Scheme.HTTP,
            timeout,
            credentials);
    try {
      return EtcdLockStore.connect(gateway, prefix, description);
    } catch (RuntimeException e) {
      gateway.close();
      throw e;
    }
  }

  /**
   * The members of {@code uri} as {@code host:port}, checked without network traffic.
   *
   * @throws IllegalArgumentException naming the problem: no host, a bad port, a path
   */
  static List<String> members(LockUri uri) {
    LockUri.Authority authority =
        uri.serversOnly(
            DEFAULT_PORT,
            "etcd://host:2379[,host2:2379] and use the keyPrefix option to separate apps");
    List<String> out = new ArrayList<>();
    for (LockUri.Server server : authority.servers()) {
      out.add(server.toString());
    }
    return out;
  }

  /**
   * The user and password of {@code uri}, or null if it names none.
   *
   * @throws IllegalArgumentException if it names a user without a password or the other way round
   */
  static EtcdGateway.@Nullable Credentials credentials(LockUri uri) {
    LockUri.Authority authority = uri.authority(DEFAULT_PORT);
    String user = authority.user();
    String password = authority.password();
    if (user == null && password == null) {
      return null;
    }
    if (user == null || password == null || password.isEmpty()) {
      throw new IllegalArgumentException(
          "lock URI '"
              + uri
              + "' must give both an etcd user and its password (etcd://user:password@host)");
    }
    return new EtcdGateway.Credentials(user, password);
  }
}
