package dev.locksmith.examples;

import java.io.PrintStream;

/**
 * The fencing story on memcached (lock-memcached).
 *
 * <p>Memcached expires items in whole seconds, so one second is the shortest lease it takes and the
 * rival gets the lock up to two seconds after the holder's lease ended; the fencing token is an
 * {@code incr} counter seeded from the clock.
 *
 * <p>Run: {@code java dev.locksmith.examples.MemcachedExample [URI]}, default {@value
 * #DEFAULT_URI}.
 */
public final class MemcachedExample {

  /** The URI used when none is given on the command line. */
  public static final String DEFAULT_URI = "memcached://127.0.0.1:11211";

  private MemcachedExample() {}

  /** Runs the example against the store at {@code args[0]}, or {@link #DEFAULT_URI}. */
  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : DEFAULT_URI, System.out);
  }

  /** Runs the example against the store at {@code uri}, printing each step to {@code out}. */
  public static FencingDemo.Report run(String uri, PrintStream out) throws Exception {
    return FencingDemo.runWithExpiry(uri, out);
  }
}
