package dev.locksmith.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code locksmith} command: compare lock semantics across stores, and run the test kit against
 * a live store.
 *
 * <p>Exit codes: 0 success; 1 a promise failed (a kit test, or a comparison scenario found a broken
 * promise); 2 bad usage (an unknown option or store, an option out of range, a malformed URI, an
 * unknown scheme or URI option, a URI whose JDBC driver is not on the class path, an output
 * directory that cannot be written); 3 a store could not be started, reached or used. Every
 * argument is checked before any work starts, so a usage error never leaves half a run behind.
 */
@Command(
    name = "locksmith",
    mixinStandardHelpOptions = true,
    versionProvider = Locksmith.Version.class,
    description =
        "Distributed locks over Redis, Memcached, ZooKeeper, etcd and SQL databases (H2,"
            + " PostgreSQL, MariaDB/MySQL), under one contract.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:a promise failed (a kit rule, or a broken promise found by compare)",
      "2:usage error (unknown option or store, option out of range, bad URI, missing JDBC"
          + " driver, --out not writable)",
      "3:a store could not be started or reached, or refused to lock"
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
    configureLogging();
    return new CommandLine(new Locksmith()).execute(args);
  }

  /**
   * Logging for a command-line user: Locksmith's own errors only, and nothing from the drivers and
   * servers underneath. The scenarios lose leases and break stores on purpose, and a store that
   * refuses a lock (a ZooKeeper ACL) is reported by the command in one line; the drivers' own ERROR
   * lines with stack traces (Curator logs one per refused background call) would only bury it. A
   * user who wants them sets {@code -Dorg.slf4j.simpleLogger.defaultLogLevel=…} (see the README);
   * slf4j-simple reads these at its first logger, and each logger's level when it is created.
   */
  static void configureLogging() {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
      if (System.getProperty("org.slf4j.simpleLogger.log.dev.locksmith") == null) {
        System.setProperty("org.slf4j.simpleLogger.log.dev.locksmith", "error");
      }
    }
    // spymemcached logs to standard error by itself unless told to use SLF4J.
    if (System.getProperty("net.spy.log.LoggerImpl") == null) {
      System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SLF4JLogger");
    }
  }

  /** The version of this build, such as {@code 0.1.0-SNAPSHOT} (from the build's resources). */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = Locksmith.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // Unknown: said so below.
    }
    String v = p.getProperty("version", "");
    return v.isEmpty() || v.startsWith("${") ? "(version unknown)" : v;
  }

  /** {@code --version}: the version of this build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"locksmith " + version()};
    }
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
