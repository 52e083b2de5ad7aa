package dev.locksmith.examples;

import java.io.PrintStream;

/**
 * The fencing story on one Redis server (lock-redis).
 *
 * <p>The lock is a hash with a millisecond expiry ({@code PX}) set by a Lua script, which also
 * increments the name's fencing counter; the expired lock is gone from Redis when the rival asks.
 *
 * <p>Run: {@code java dev.locksmith.examples.RedisExample [URI]}, default {@value #DEFAULT_URI}.
 */
public final class RedisExample {

  /** The URI used when none is given on the command line. */
  public static final String DEFAULT_URI = "redis://127.0.0.1:6379";

  private RedisExample() {}

  /** Runs the example against the store at {@code args[0]}, or {@link #DEFAULT_URI}. */
  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : DEFAULT_URI, System.out);
  }

  /** Runs the example against the store at {@code uri}, printing each step to {@code out}. */
  public static FencingDemo.Report run(String uri, PrintStream out) throws Exception {
    return FencingDemo.runWithExpiry(uri, out);
  }
}
