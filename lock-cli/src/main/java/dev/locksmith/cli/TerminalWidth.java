package dev.locksmith.cli;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The width of the terminal the table is printed to: {@code COLUMNS} when the shell exports it,
 * else what {@code stty} says about the controlling terminal, else 80 (output to a pipe or file).
 */
final class TerminalWidth {

  private static final int FALLBACK = 80;

  private TerminalWidth() {}

  static int detect() {
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
    // bash does not export COLUMNS, so ask the terminal itself, but only when there is one.
    if (System.console() == null || !new File("/dev/tty").canRead()) {
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
