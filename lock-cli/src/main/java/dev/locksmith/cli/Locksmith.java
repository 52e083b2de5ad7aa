package dev.locksmith.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code locksmith} command: compare lock semantics across stores, and run the test kit against
 * a live store.
 *
 * <p>Exit codes: 0 success; 1 a promise failed (a kit test, or a comparison scenario found a broken
 * promise); 2 bad usage (including a URI whose JDBC driver is not on the class path); 3 a store
 * could not be started or reached.
 */
@Command(
    name = "locksmith",
    mixinStandardHelpOptions = true,
    version = "locksmith 0.1.0-SNAPSHOT",
    description = "Distributed locks over Redis, Memcached, ZooKeeper and SQL, under one contract.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:a promise failed (a kit rule, or a broken promise found by compare)",
      "2:usage error (unknown option or store, bad URI, missing JDBC driver)",
      "3:a store could not be started or reached"
    },
    subcommands = {CompareCommand.class, TckCommand.class, CommandLine.HelpCommand.class})
public final class Locksmith implements Runnable {

  /** A promise failed. */
  public static final int EXIT_PROMISE_FAILED = 1;

  /** Bad usage: picocli's own code for it, also used for bad URIs and missing drivers. */
  public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;

  /** A store could not be started or reached. */
  public static final int EXIT_STORE_UNAVAILABLE = 3;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /**
   * Runs the command line and returns its exit code. Tests call this, so the logging set-up lives
   * here: they see the same standard error as a user does.
   */
  public static int run(String... args) {
    // The scenarios lose leases on purpose; the engine's warnings about it would drown the report.
    // Errors still show: a successful run must print none (slf4j-simple reads this once, at its
    // first logger).
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    }
    // spymemcached logs to standard error by itself unless told to use SLF4J.
    if (System.getProperty("net.spy.log.LoggerImpl") == null) {
      System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SLF4JLogger");
    }
    return new CommandLine(new Locksmith()).execute(args);
  }

  /**
   * No subcommand: there is nothing to do, so this is a usage error (exit 2) with the usage on
   * standard error, as for any other usage error, so that a script calling {@code locksmith} with a
   * missing argument does not carry on as if it had worked.
   */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
  }
}
