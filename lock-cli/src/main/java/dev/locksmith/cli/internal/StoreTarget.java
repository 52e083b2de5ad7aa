package dev.locksmith.cli.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.StoreFaults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One store the comparison runs on: its name, how to open clients, and (for stores it started) how
 * to break it. Closing it stops what it started.
 */
public final class StoreTarget implements AutoCloseable {

  private final String name;
  private final String uri;
  private final @Nullable StoreFaults control;
  private final boolean canPause;
  private final Duration shortLease;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private Duration reconnectSettle = Duration.ZERO;

  /**
   * A target called {@code name} at {@code uri}; {@code control} is null when the store cannot be
   * broken on purpose (a live deployment, an in-process database), and {@code canPause} false when
   * it can be stopped and restarted but not frozen (a server inside this JVM).
   */
  public StoreTarget(
      String name,
      String uri,
      @Nullable StoreFaults control,
      boolean canPause,
      Duration shortLease) {
    this.name = name;
    this.uri = uri;
    this.control = control;
    this.canPause = control != null && canPause;
    this.shortLease = shortLease;
  }

  /**
   * Sets how long after the store comes back from a restart its clients must stay open, because
   * their driver still has reconnect work pending that a shutdown would cut off. Lettuce is such a
   * driver: every refused reconnect attempt during the outage leaves a handshake timer
   * (lock-redis's handshake timeout, 1 s) behind, and a client shut down before those timers fire
   * lets them run against its terminated event loop, which Netty reports as an ERROR with a stack
   * trace per attempt.
   */
  public StoreTarget reconnectSettle(Duration settle) {
    this.reconnectSettle = settle;
    return this;
  }

  /** How long clients stay open after a restart (zero for most stores). */
  public Duration reconnectSettle() {
    return reconnectSettle;
  }

  /** Registers something to close with the target (a server, a temporary directory). */
  public StoreTarget closing(AutoCloseable resource) {
    resources.add(resource);
    return this;
  }

  public String name() {
    return name;
  }

  public String uri() {
    return uri;
  }

  public @Nullable StoreFaults control() {
    return control;
  }

  /** Whether {@link #control()} can pause the store (not only kill and restart it). */
  public boolean canPause() {
    return canPause;
  }

  /** The shortest lease the scenarios use on this store (memcached counts whole seconds). */
  public Duration shortLease() {
    return shortLease;
  }

  /** A new client: a separate connection, standing for a separate process. */
  public LockClient open(LockOptions options) {
    return LockClient.open(uri, options);
  }

  @Override
  public void close() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        System.err.println("warning: stopping " + name + ": " + e);
      }
    }
  }
}
