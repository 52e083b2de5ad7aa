package dev.locksmith.cli;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One {@code locksmith} command run as a user runs it: in a JVM of its own (this test JVM's class
 * path), its standard output and error kept apart. A JVM of its own matters for what standard error
 * shows: the command sets up logging once per JVM, before the first logger is made, and a test JVM
 * has made its loggers long before.
 *
 * @param code the exit code
 * @param stdout everything on standard output
 * @param stderr standard error's lines
 */
record CommandRun(int code, String stdout, List<String> stderr) {

  /** Far beyond what a refused command takes (a JVM start and a one-second connection attempt). */
  private static final long TIMEOUT_SECONDS = 60;

  /**
   * Runs {@code locksmith args…} in {@code dir}, which also keeps its output files.
   *
   * @throws AssertionError if it still runs after a minute (it is then killed)
   */
  static CommandRun of(Path dir, List<String> args) throws Exception {
    Objects.requireNonNull(dir, "dir must not be null");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Locksmith.class.getName());
    command.addAll(args);
    File out = dir.resolve("stdout.txt").toFile();
    File err = dir.resolve("stderr.txt").toFile();
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectOutput(out)
            .redirectError(err)
            .start();
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(
          "locksmith "
              + String.join(" ", args)
              + " still running after "
              + TIMEOUT_SECONDS
              + " s; standard error:\n"
              + Files.readString(err.toPath()));
    }
    return new CommandRun(
        p.exitValue(), Files.readString(out.toPath()), Files.readAllLines(err.toPath()));
  }
}
