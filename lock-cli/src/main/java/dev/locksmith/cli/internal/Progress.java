package dev.locksmith.cli.internal;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * What a long command is doing, on standard error, so that standard output carries the report only
 * ({@code locksmith compare > table.txt} or a pipe gets the table and nothing else).
 *
 * <p>On a terminal each {@link #step} overwrites the line before it (one line that updates); to a
 * file or a pipe each step is a line of its own, so a log keeps them all. {@link #line} always
 * prints a line that stays (a skipped store, a failed scenario).
 */
public final class Progress {

  private final PrintStream out;

  /** The terminal's width, for one updating line; 0 for a line per step. */
  private final int width;

  private boolean open;

  private Progress(PrintStream out, int width) {
    this.out = Objects.requireNonNull(out, "out must not be null");
    this.width = width;
  }

  /**
   * Progress on {@code out}, a line per step.
   *
   * @throws NullPointerException if {@code out} is null
   */
  public static Progress lines(PrintStream out) {
    return new Progress(out, 0);
  }

  /** Progress on {@code out} as on a terminal {@code width} columns wide: one updating line. */
  static Progress updating(PrintStream out, int width) {
    if (width < 2) {
      throw new IllegalArgumentException("width must be at least 2, was " + width);
    }
    return new Progress(out, width);
  }

  /**
   * Progress on standard error: one updating line when standard error is a terminal ({@code width}
   * gives its width, asked only then), else a line per step.
   */
  public static Progress onStandardError(IntSupplier width) {
    Objects.requireNonNull(width, "width must not be null");
    return standardErrorIsTerminal()
        ? updating(System.err, Math.max(2, width.getAsInt()))
        : lines(System.err);
  }

  /** A step begins: replaces the previous step on a terminal, else a line of its own. */
  public synchronized void step(String what) {
    if (width == 0) {
      out.println(what);
      return;
    }
    String shown = what.strip();
    if (shown.length() > width - 1) {
      shown = shown.substring(0, width - 2) + "…";
    }
    // Carriage return, the text, then erase what a longer earlier step left on the line.
    out.print("\r" + shown + "\033[K");
    out.flush();
    open = true;
  }

  /** A line that stays, after the current step (which it does not overwrite on a terminal). */
  public synchronized void line(String text) {
    clear();
    out.println(text);
  }

  /** Clears the updating line, so that what follows starts on an empty line. */
  public synchronized void done() {
    clear();
    out.flush();
  }

  private void clear() {
    if (open) {
      out.print("\r\033[K");
      open = false;
    }
  }

  /**
   * Whether this process's standard error (file descriptor 2) is a terminal, as far as Linux's
   * {@code /proc} tells; false elsewhere, and for a dumb terminal, which cannot erase a line.
   */
  static boolean standardErrorIsTerminal() {
    if ("dumb".equals(System.getenv("TERM"))) {
      return false;
    }
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (Exception e) {
      return false;
    }
  }
}
