package dev.locksmith.cli.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.LockStoreContract;
import java.time.Duration;
import java.util.Objects;

/**
 * The kit against a live store given by URI, for {@code locksmith tck}. The URI and timings come
 * from system properties set by the command, since JUnit creates this class itself.
 */
public class LiveStoreContract extends LockStoreContract {

  /** The system property with the URI under test. */
  public static final String URI = "locksmith.tck.uri";

  /** The system property with the short lease in milliseconds. */
  public static final String SHORT_LEASE_MS = "locksmith.tck.shortLeaseMs";

  /** The system property with the timing slack in milliseconds. */
  public static final String SLACK_MS = "locksmith.tck.slackMs";

  @Override
  protected LockClient newClient(LockOptions options) {
    String uri = System.getProperty(URI);
    if (uri == null) {
      throw new IllegalStateException("system property " + URI + " is not set");
    }
    return LockClient.open(uri, options);
  }

  /**
   * The live store is a URI: child processes of the multi-process rules open it too, unless the
   * store lives inside one JVM ({@code mem:}, an in-memory H2 database), where a child process
   * would open a store of its own.
   */
  @Override
  protected java.util.Optional<String> storeUri() {
    String uri = System.getProperty(URI);
    if (uri == null || uri.startsWith("mem:") || uri.startsWith("jdbc:h2:mem:")) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(uri);
  }

  @Override
  protected Duration shortLease() {
    return Duration.ofMillis(Long.getLong(SHORT_LEASE_MS, super.shortLease().toMillis()));
  }

  /**
   * The timing slack when none is given: 1 s, plus two of the store's clock units where they are
   * coarser than a millisecond. Such a store rounds a lease up to a unit and judges expiry on a
   * clock that moves a unit at a time (memcached: whole seconds, so 3 s).
   */
  public static Duration defaultSlack(LockClient client) {
    Objects.requireNonNull(client, "client");
    Duration unit = new LiveStoreContract().storeTiming(client).granularity();
    Duration slack = Duration.ofSeconds(1);
    return unit.compareTo(Duration.ofMillis(1)) > 0 ? slack.plus(unit.multipliedBy(2)) : slack;
  }

  @Override
  protected Duration timingSlack() {
    return Duration.ofMillis(Long.getLong(SLACK_MS, super.timingSlack().toMillis()));
  }
}
