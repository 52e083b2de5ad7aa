package dev.locksmith.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code locksmith} command: compare lock semantics across stores, and run the test kit against
 * a live store.
 *
 * <p>Exit codes: 0 success; 1 a promise failed (a kit test, or a comparison scenario found a broken
 * promise); 2 bad usage; 3 a store could not be started or reached.
 */
@Command(
    name = "locksmith",
    mixinStandardHelpOptions = true,
    version = "locksmith 0.1.0-SNAPSHOT",
    description = "Distributed locks over Redis, Memcached, ZooKeeper and SQL, under one contract.",
    subcommands = {CompareCommand.class, TckCommand.class, CommandLine.HelpCommand.class})
public final class Locksmith implements Runnable {

  /** A promise failed. */
  public static final int EXIT_PROMISE_FAILED = 1;

  /** A store could not be started or reached. */
  public static final int EXIT_STORE_UNAVAILABLE = 3;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    // The scenarios lose leases on purpose; the engine's warnings about it would drown the report.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    }
    // spymemcached logs to standard error by itself unless told to use SLF4J.
    if (System.getProperty("net.spy.log.LoggerImpl") == null) {
      System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SLF4JLogger");
    }
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code (for tests). */
  public static int run(String... args) {
    return new CommandLine(new Locksmith()).execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
