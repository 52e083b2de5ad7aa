package dev.locksmith.examples;

import java.io.PrintStream;

/**
 * The fencing story on the in-process {@code mem:} store (lock-api, no server).
 *
 * <p>Two clients of one JVM that open the same {@code mem:NAME} share its locks, so the holder and
 * the rival meet on one lock, as two processes would on a real store.
 *
 * <p>Run: {@code java dev.locksmith.examples.MemExample [URI]}, default {@value #DEFAULT_URI}.
 */
public final class MemExample {

  /** The URI used when none is given on the command line. */
  public static final String DEFAULT_URI = "mem:examples";

  private MemExample() {}

  /** Runs the example against the store at {@code args[0]}, or {@link #DEFAULT_URI}. */
  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : DEFAULT_URI, System.out);
  }

  /** Runs the example against the store at {@code uri}, printing each step to {@code out}. */
  public static FencingDemo.Report run(String uri, PrintStream out) throws Exception {
    return FencingDemo.runWithExpiry(uri, out);
  }
}
