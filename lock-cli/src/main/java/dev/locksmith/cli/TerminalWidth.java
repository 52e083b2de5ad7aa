package dev.locksmith.cli;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The width of the terminal: {@code COLUMNS} when the shell exports it, else what {@code stty} says
 * about the controlling terminal, else 80.
 */
final class TerminalWidth {

  private static final int FALLBACK = 80;

  private TerminalWidth() {}

  /**
   * The width for the table on standard output: the terminal's when standard output is one, else
   * ({@code > file}, a pipe) {@code COLUMNS} or 80.
   */
  static int forStandardOutput() {
    int columns = columnsVariable();
    if (columns > 0) {
      return columns;
    }
    // bash does not export COLUMNS, so ask the terminal itself, but only when there is one.
    return System.console() == null ? FALLBACK : ask();
  }

  /**
   * The width for the progress line on standard error: the controlling terminal's (standard output
   * may go to a file meanwhile), else 80.
   */
  static int forStandardError() {
    int columns = columnsVariable();
    return columns > 0 ? columns : ask();
  }

  private static int columnsVariable() {
    String columns = System.getenv("COLUMNS");
    if (columns != null) {
      try {
        int c = Integer.parseInt(columns.trim());
        if (c >= 40) {
          return c;
        }
      } catch (NumberFormatException e) {
        // not a number: ask the terminal instead
      }
    }
    return 0;
  }

  /** {@code stty size} of the controlling terminal, or 80 without one. */
  private static int ask() {
    if (!new File("/dev/tty").canRead()) {
      return FALLBACK;
    }
    try {
      Process stty =
          new ProcessBuilder("stty", "size")
              .redirectInput(new File("/dev/tty"))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!stty.waitFor(2, TimeUnit.SECONDS)) {
        stty.destroyForcibly();
        return FALLBACK;
      }
      String[] rowsCols =
          new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
              .trim()
              .split("\\s+");
      int c = rowsCols.length == 2 ? Integer.parseInt(rowsCols[1]) : 0;
      return c >= 40 ? c : FALLBACK;
    } catch (Exception e) {
      return FALLBACK;
    }
  }
}
