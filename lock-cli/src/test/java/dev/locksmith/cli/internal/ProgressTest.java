package dev.locksmith.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What {@code compare} shows on standard error while it works: to a file, and on a terminal. */
class ProgressTest {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String written() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName("to a file or a pipe every step is a line of its own, and nothing is erased")
  void linesToAFile() {
    Progress p = Progress.lines(out);
    p.step("starting mem...");
    p.step("  mem        capabilities...");
    p.line("skipping redis: redis-server is not on the PATH");
    p.done();
    assertThat(written())
        .isEqualTo(
            "starting mem...\n  mem        capabilities...\n"
                + "skipping redis: redis-server is not on the PATH\n")
        .doesNotContain("\r", "\033");
  }

  @Test
  @DisplayName(
      "on a terminal each step overwrites the one before on one line, cut to the width; a line"
          + " that stays clears it first, and done() leaves the line empty")
  void oneUpdatingLineOnATerminal() {
    Progress p = Progress.updating(out, 20);
    p.step("starting mem...");
    p.step("  mem        uncontended acquire+release...");
    assertThat(written())
        .isEqualTo("\rstarting mem...\033[K\rmem        unconte…\033[K")
        .doesNotContain("\n");
    p.line("could not start h2");
    p.done();
    assertThat(written()).endsWith("\033[K\r\033[Kcould not start h2\n");
    // Every character shown on the line fits the terminal's width.
    for (String shown : written().split("[\r\n]")) {
      assertThat(shown.replace("\033[K", "").length()).isLessThan(20);
    }
    assertThatThrownBy(() -> Progress.updating(out, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("width");
  }
}
