package dev.locksmith.examples;

import java.io.PrintStream;

/**
 * The fencing story on an embedded H2 database (lock-jdbc, no server).
 *
 * <p>The lock is a row of a table created on first use; expiry is judged on the database clock and
 * the token is the row's version. The in-memory database is kept while the JVM runs ({@code
 * DB_CLOSE_DELAY=-1}) so both clients see one table.
 *
 * <p>Run: {@code java dev.locksmith.examples.H2Example [URI]}, default {@value #DEFAULT_URI}.
 */
public final class H2Example {

  /** The URI used when none is given on the command line. */
  public static final String DEFAULT_URI = "jdbc:h2:mem:examples;DB_CLOSE_DELAY=-1";

  private H2Example() {}

  /** Runs the example against the store at {@code args[0]}, or {@link #DEFAULT_URI}. */
  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : DEFAULT_URI, System.out);
  }

  /** Runs the example against the store at {@code uri}, printing each step to {@code out}. */
  public static FencingDemo.Report run(String uri, PrintStream out) throws Exception {
    return FencingDemo.runWithExpiry(uri, out);
  }
}
