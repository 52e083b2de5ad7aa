package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command line a user can get wrong, with the exit code and the one-line message it gets: 2
 * for a usage error, 3 for a store that cannot be reached. Each is refused before any work: nothing
 * on standard output, no report written, no stack trace.
 */
class ExitCodesTest {

  /**
   * A loopback port bound by this test and never listened on: a connection to it is refused at
   * once, and no other test can start a server on it meanwhile (a port found free and closed again
   * could be).
   */
  private static final Socket UNLISTENED = unlistened();

  private static final String DEAD = "127.0.0.1:" + UNLISTENED.getLocalPort();

  private static Socket unlistened() {
    Socket s = new Socket();
    try {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  static void release() throws IOException {
    UNLISTENED.close();
  }

  static Stream<Arguments> commandLines() {
    return Stream.of(
        // compare: a --uri that is no lock URI, or not one the command can open.
        usage("compare --uri redis://[bad", "has an unclosed IPv6 bracket"),
        usage("compare --uri nosuch://x", "no lock provider for URI scheme 'nosuch'"),
        usage("compare --uri redis://" + DEAD + "?bogus=1", "unknown option 'bogus'"),
        usage("compare --uri redis", "--uri 'redis' is not a lock URI; write [NAME=]URI"),
        usage("compare --uri :x", "is not a lock URI"),
        usage("compare --uri x=", "names no URI after '='"),
        usage("compare --uri bad/name=mem:x", "the store name 'bad/name' must be letters"),
        usage("compare --uri a=mem:x --uri a=mem:y", "--uri names store 'a' twice"),
        usage("compare --stores mem --uri mem=mem:x", "two stores named 'mem'"),
        usage("compare --uri jdbc:sqlserver://" + DEAD, "no JDBC driver for 'jdbc:sqlserver:'"),
        // compare: options.
        usage("compare --bogus", "Unknown option: '--bogus'"),
        usage("compare --stores oracle", "unknown store 'oracle'; known stores: etcd"),
        usage("compare --stores mem,mem", "--stores names mem twice"),
        usage("compare --samples 0", "--samples must be between 10 and 1000000, was 0"),
        usage("compare --samples 1000001", "--samples must be between 10 and 1000000"),
        usage("compare --handoffs 0", "--handoffs must be between 1 and 10000, was 0"),
        usage("compare --width 10", "--width must be between 40 and 1000, was 10"),
        usage("compare --samples many", "Invalid value for option '--samples'"),
        usage(
            "compare --stores mem --out /dev/null/x",
            "--out /dev/null/x: cannot create the directory (/dev/null is not a directory)"),
        // compare: a store that does not answer.
        unreachable("compare --uri redis://" + DEAD, "cannot reach redis://" + DEAD),
        unreachable("compare --uri mc=memcached://" + DEAD, "--uri mc=memcached://" + DEAD),
        // tck.
        usage("tck", "Missing required option: '--uri=URI'"),
        usage("tck --uri redis", "lock URI 'redis' has no scheme"),
        usage("tck --uri nosuch://x", "no lock provider for URI scheme 'nosuch'"),
        usage("tck --uri redis://" + DEAD + "?bogus=1", "unknown option 'bogus'"),
        usage(
            "tck --uri mem:x --short-lease 9223372036854775807",
            "--short-lease must be between 100 and 60000 ms, was 9223372036854775807"),
        usage("tck --uri mem:x --short-lease 0", "--short-lease must be between 100 and 60000"),
        usage("tck --uri mem:x --short-lease 60001", "--short-lease must be between 100 and"),
        usage("tck --uri mem:x --slack -1", "--slack must be between 0 and 60000 ms, was -1"),
        usage("tck --uri mem:x --slack 60001", "--slack must be between 0 and 60000 ms"),
        usage("tck --uri mem:x --short-lease soon", "Invalid value for option '--short-lease'"),
        unreachable("tck --uri redis://" + DEAD, "cannot reach redis://" + DEAD),
        unreachable("tck --uri memcached://" + DEAD, "cannot reach memcached://" + DEAD),
        // The top level.
        usage("", "Usage: locksmith"),
        usage("nosuch", "Unmatched argument at index 0: 'nosuch'"));
  }

  private static Arguments usage(String commandLine, String message) {
    return Arguments.of(commandLine, Locksmith.EXIT_USAGE, message);
  }

  private static Arguments unreachable(String commandLine, String message) {
    return Arguments.of(commandLine, Locksmith.EXIT_STORE_UNAVAILABLE, message);
  }

  @ParameterizedTest(name = "locksmith {0} → exit {1}")
  @MethodSource("commandLines")
  void refusedBeforeAnyWork(String commandLine, int exitCode, String message, @TempDir Path dir)
      throws Exception {
    List<String> args = new ArrayList<>(commandLine.isEmpty() ? List.of() : split(commandLine));
    Path report = dir.resolve("report");
    if (commandLine.startsWith("compare") && !commandLine.contains("--out")) {
      args.add("--out");
      args.add(report.toString());
    }
    CommandRun run = CommandRun.of(dir, args);
    String stderr = String.join("\n", run.stderr());
    assertThat(run.code()).as(stderr).isEqualTo(exitCode);
    assertThat(stderr).contains(message);
    assertThat(run.stderr())
        .as("no stack trace, no driver's log line")
        .noneMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by: ") || l.startsWith("["));
    assertThat(run.stdout()).as("nothing on standard output").isEmpty();
    assertThat(Files.exists(report)).as("no report written").isFalse();
    if (PICOCLI_MESSAGES.stream().noneMatch(message::startsWith)) {
      // The command's own refusals are one line (compare adds where to read more); picocli's
      // are followed by the usage.
      assertThat(run.stderr().stream().filter(l -> !l.startsWith("(see locksmith")))
          .as(stderr)
          .hasSize(1);
    }
  }

  /** How picocli's own parse errors begin: it prints the usage after them. */
  private static final List<String> PICOCLI_MESSAGES =
      List.of("Unknown option", "Invalid value", "Unmatched argument", "Usage:");

  private static List<String> split(String commandLine) {
    return List.of(commandLine.split(" "));
  }
}
