package dev.locksmith.cli.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The processes this JVM started, read from the operating system: a fixture that starts a server
 * process shows in the report with the command line it really ran, whatever the fixture's code
 * says, and stays true when the fixture changes.
 */
final class ChildProcesses {

  private ChildProcesses() {}

  /** The process ids of this JVM's children now. */
  static Set<Long> now() {
    return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  /** The command lines of the children started since {@code before} was taken, in pid order. */
  static List<String> startedSince(Set<Long> before) {
    List<String> lines = new ArrayList<>();
    ProcessHandle.current()
        .children()
        .filter(p -> !before.contains(p.pid()))
        .sorted()
        .forEach(p -> lines.add(commandLine(p)));
    return lines;
  }

  /**
   * What the process shows as its command line ({@code ps -o args}): the program's file name, its
   * arguments, and a Java class path as its files' names. A server that rewrites its process title
   * (redis-server does) shows the title.
   */
  static String commandLine(ProcessHandle p) {
    List<String> args = new ArrayList<>(procCmdline(p.pid()));
    if (args.isEmpty()) {
      args.add(p.info().command().orElse("?"));
      p.info().arguments().ifPresent(a -> args.addAll(List.of(a)));
    }
    List<String> shown = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (i == 0 && !arg.contains(" ")) {
        arg = fileName(arg);
      }
      shown.add(arg.strip());
      if ((arg.equals("-cp") || arg.equals("-classpath")) && i + 1 < args.size()) {
        List<String> names = new ArrayList<>();
        for (String entry : args.get(++i).split(File.pathSeparator)) {
          names.add(fileName(entry));
        }
        shown.add(String.join(File.pathSeparator, names));
      }
    }
    return String.join(" ", shown);
  }

  private static String fileName(String path) {
    try {
      Path name = Path.of(path).getFileName();
      return name == null ? path : name.toString();
    } catch (RuntimeException e) {
      return path;
    }
  }

  /** {@code /proc/PID/cmdline}'s parts (Linux), or empty where it cannot be read. */
  private static List<String> procCmdline(long pid) {
    try {
      String raw =
          new String(
              Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
              StandardCharsets.UTF_8);
      List<String> parts = new ArrayList<>();
      for (String part : raw.split("\0")) {
        if (!part.isBlank()) {
          parts.add(part);
        }
      }
      return parts;
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
