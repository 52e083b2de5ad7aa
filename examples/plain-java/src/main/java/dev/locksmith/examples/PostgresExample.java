package dev.locksmith.examples;

import java.io.PrintStream;

/**
 * The fencing story on PostgreSQL (lock-jdbc).
 *
 * <p>The same lock table as the H2 example, in the database the URI names; expiry is judged on the
 * PostgreSQL server's clock, never the clients'.
 *
 * <p>Run: {@code java dev.locksmith.examples.PostgresExample [URI]}, default {@value #DEFAULT_URI}.
 */
public final class PostgresExample {

  /** The URI used when none is given on the command line. */
  public static final String DEFAULT_URI =
      "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";

  private PostgresExample() {}

  /** Runs the example against the store at {@code args[0]}, or {@link #DEFAULT_URI}. */
  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : DEFAULT_URI, System.out);
  }

  /** Runs the example against the store at {@code uri}, printing each step to {@code out}. */
  public static FencingDemo.Report run(String uri, PrintStream out) throws Exception {
    return FencingDemo.runWithExpiry(uri, out);
  }
}
