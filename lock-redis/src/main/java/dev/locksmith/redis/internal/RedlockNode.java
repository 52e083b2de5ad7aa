package dev.locksmith.redis.internal;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One master of a Redlock: its connection (made lazily if the node was down when the store opened),
 * the script operations on it, and the delayed-restart rule.
 *
 * <p>The rule: a master that restarted without persistence forgot the locks it granted, so it must
 * not vote until one maximum lease has passed since it came back, or two clients could both reach a
 * quorum. A restart is seen as a change of the server's {@code run_id}, checked on every
 * (re)connect; a master with append-only-file persistence keeps its locks and votes at once.
 */
public final class RedlockNode implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RedlockNode.class);

  private final RedisURI uri;
  private final KeyLayout layout;
  private final Duration restartDelay;
  private @Nullable RedisEndpoint endpoint;
  private @Nullable ScriptOperations operations;
  private @Nullable String runId;
  private volatile boolean recheck = true;
  private volatile long quarantinedUntil;
  private volatile boolean quarantined;
  private boolean closed;

  /** A node at {@code uri}; nothing is connected yet. */
  public RedlockNode(RedisURI uri, KeyLayout layout, Duration restartDelay) {
    this.uri = uri;
    this.layout = layout;
    this.restartDelay = restartDelay;
  }

  /** {@code host:port}. */
  public String address() {
    return uri.getHost() + ":" + uri.getPort();
  }

  /**
   * The operations on this node for a call whose answer counts toward a quorum (acquire, extend),
   * connecting first if needed.
   *
   * @throws IllegalStateException if the node is in its restart delay
   * @throws RuntimeException the driver's failure if the node cannot be reached
   */
  public LockOperations votingOperations() {
    return operationsFor(Vote.COUNTS);
  }

  /**
   * The operations on this node for a call that does not vote (release, read, connect), sent to a
   * master in its restart delay too; connects first if needed.
   *
   * @throws RuntimeException the driver's failure if the node cannot be reached
   */
  public LockOperations operations() {
    return operationsFor(Vote.NONE);
  }

  /** Whether a call's answer counts toward a quorum. */
  private enum Vote {
    COUNTS,
    NONE
  }

  private synchronized LockOperations operationsFor(Vote vote) {
    if (closed) {
      throw new IllegalStateException("the Redlock store is closed");
    }
    if (endpoint == null) {
      endpoint = RedisEndpoint.single(uri, uri.getTimeout(), () -> recheck = true);
      // Redlock pushes no releases (nobody subscribes): its releases publish nothing.
      operations = new ScriptOperations(endpoint, layout, ScriptOperations.Wake.WHEN_SUBSCRIBED);
      // A master that evicts the lock key gives its vote to the next client: warn once per master.
      EvictionPolicy.warnIfEvicting(endpoint, log);
    }
    if (recheck) {
      checkRestart(endpoint);
    }
    if (vote == Vote.COUNTS && quarantined) {
      long left = quarantinedUntil - System.nanoTime();
      if (left > 0) {
        throw new IllegalStateException(
            "Redis master "
                + address()
                + " restarted without persistence; it may vote again in "
                + Duration.ofNanos(left).toMillis()
                + " ms (the delayed-restart rule)");
      }
      quarantined = false;
    }
    return operations;
  }

  private void checkRestart(RedisEndpoint e) {
    String server = e.commands().info("server");
    String current = field(server, "run_id");
    boolean persistent = "1".equals(field(e.commands().info("persistence"), "aof_enabled"));
    if (runId != null && !runId.equals(current) && !persistent) {
      quarantinedUntil = System.nanoTime() + restartDelay.toNanos();
      quarantined = true;
      log.warn(
          "Redis master {} restarted without persistence (run_id {} -> {}); it will not count"
              + " toward a Redlock quorum for {} ms",
          address(),
          runId,
          current,
          restartDelay.toMillis());
    }
    runId = current;
    recheck = false;
  }

  private static @Nullable String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).strip();
      }
    }
    return null;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (endpoint != null) {
      endpoint.close();
    }
  }
}
