package dev.locksmith.tck.internal;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A lock holder in a child JVM, so that a holder can really die ({@code SIGKILL}) or freeze ({@code
 * SIGSTOP}) mid-hold, and so that contenders really are separate processes.
 *
 * <p>It prints {@code ACQUIRED <token>} (0 without fencing) once it holds the lock, or {@code BUSY}
 * if it could not within its wait, and {@code LOST <reason>} whenever it is told the lease was
 * lost. Then it obeys lines on standard input: {@code CHECK} answers {@code VALID true|false};
 * {@code WRITE} answers {@code WRITE <token>} without checking anything, as a holder does that
 * checked its lease, was paused, and then wrote; {@code RELEASE} answers {@code RELEASED}, {@code
 * LOST-AT-RELEASE} or, if the store failed, {@code FAILED-AT-RELEASE <message>}. End of input
 * releases and exits.
 */
public final class HolderProcess {

  private HolderProcess() {}

  /** Arguments: URI, lock name, lease time in milliseconds, wait in milliseconds, owner prefix. */
  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println(
          "usage: HolderProcess <uri> <lock-name> <lease-ms> <wait-ms> <owner-prefix|->");
      System.exit(2);
    }
    PrintWriter out =
        new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    LockOptions.Builder options =
        LockOptions.builder().leaseTime(Duration.ofMillis(Long.parseLong(args[2])));
    if (!args[4].equals("-")) {
      options.owner(args[4]);
    }
    try (LockClient client = LockClient.open(args[0], options.build())) {
      java.util.Optional<Lease> got =
          client.lock(args[1]).tryAcquire(Duration.ofMillis(Long.parseLong(args[3])));
      if (got.isEmpty()) {
        out.println("BUSY");
        return;
      }
      Lease lease = got.get();
      long token = client.capabilities().contains(Capability.FENCING) ? lease.fencingToken() : 0;
      lease.onLost((l, why) -> out.println("LOST " + why.reason()));
      out.println("ACQUIRED " + token);
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        switch (line.trim()) {
          case "CHECK":
            out.println("VALID " + lease.isValid());
            break;
          case "WRITE":
            out.println("WRITE " + token);
            break;
          case "RELEASE":
            try {
              lease.release();
              out.println("RELEASED");
            } catch (LeaseLostException e) {
              out.println("LOST-AT-RELEASE " + e.reason());
            } catch (dev.locksmith.LockStoreException e) {
              out.println("FAILED-AT-RELEASE " + e.getMessage());
            }
            break;
          default:
            out.println("UNKNOWN " + line);
        }
      }
    }
  }

  /**
   * Starts a holder of {@code name} on {@code uri} in a child JVM with this JVM's class path and
   * waits until it holds the lock.
   *
   * @throws IllegalStateException if it does not acquire within 30 s
   */
  public static Started start(String uri, String name, Duration lease) {
    Started s = attempt(uri, name, lease, Duration.ofSeconds(30), null);
    if (!s.acquired()) {
      s.close();
      throw new IllegalStateException("the holder process found the lock busy for 30 s");
    }
    return s;
  }

  /**
   * Starts a child JVM that tries to acquire {@code name} on {@code uri} for at most {@code wait},
   * as owner prefix {@code owner} (null: the default), and returns once it has either acquired the
   * lock or given up ({@link Started#acquired()}).
   */
  public static Started attempt(
      String uri, String name, Duration lease, Duration wait, @Nullable String owner) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Xshare:auto");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=error");
    cmd.add("-Dnet.spy.log.LoggerImpl=net.spy.memcached.compat.log.SLF4JLogger");
    cmd.add(HolderProcess.class.getName());
    cmd.add(uri);
    cmd.add(name);
    cmd.add(Long.toString(lease.toMillis()));
    cmd.add(Long.toString(wait.toMillis()));
    cmd.add(owner == null ? "-" : owner);
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      Started s = new Started(p);
      // A JVM start plus a connection on a loaded machine: generous, it is not a timing bound.
      String line = s.readLine(wait.plus(Duration.ofSeconds(60)));
      if (line != null && line.equals("BUSY")) {
        return s;
      }
      if (line == null || !line.startsWith("ACQUIRED ")) {
        p.destroyForcibly();
        throw new IllegalStateException("the holder process did not acquire; it said: " + line);
      }
      s.acquired = true;
      s.token = Long.parseLong(line.substring("ACQUIRED ".length()).trim());
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A started holder: its process, its token, and a line-based conversation with it. */
  public static final class Started implements AutoCloseable {
    private final Process process;
    private final BufferedReader output;
    private final PrintWriter input;
    private final List<String> unclaimed = new ArrayList<>();
    private boolean acquired;
    private long token;

    Started(Process process) {
      this.process = process;
      this.output =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      this.input =
          new PrintWriter(
              new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
    }

    public Process process() {
      return process;
    }

    /** Whether it acquired the lock (else it found it busy for its whole wait and exited). */
    public boolean acquired() {
      return acquired;
    }

    /** The fencing token it acquired with (0 without fencing). */
    public long token() {
      return token;
    }

    /** Sends a command line. */
    public void send(String command) {
      input.println(command);
    }

    /**
     * The next line it printed, waiting at most {@code timeout}; null if it ended or said nothing.
     */
    public String readLine(Duration timeout) throws IOException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (output.ready()) {
          return output.readLine();
        }
        if (!process.isAlive() && !output.ready()) {
          return null;
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        }
      }
      return null;
    }

    /**
     * The first line starting with {@code prefix} that no earlier await took, reading more lines
     * for at most {@code timeout}; null if none comes. Lines read while looking for another prefix
     * are kept, so the order in which the holder prints does not matter.
     */
    public String await(String prefix, Duration timeout) throws IOException {
      for (java.util.Iterator<String> it = unclaimed.iterator(); it.hasNext(); ) {
        String line = it.next();
        if (line.startsWith(prefix)) {
          it.remove();
          return line;
        }
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        String line = readLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        if (line == null) {
          return null;
        }
        if (line.startsWith(prefix)) {
          return line;
        }
        unclaimed.add(line);
      }
      return null;
    }

    /**
     * The first line starting with any of {@code prefixes} that no earlier await took, as {@link
     * #await} finds one prefix; null if none comes within {@code timeout}.
     */
    public String awaitAny(Duration timeout, String... prefixes) throws IOException {
      for (java.util.Iterator<String> it = unclaimed.iterator(); it.hasNext(); ) {
        String line = it.next();
        if (startsWithAny(line, prefixes)) {
          it.remove();
          return line;
        }
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        String line = readLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        if (line == null) {
          return null;
        }
        if (startsWithAny(line, prefixes)) {
          return line;
        }
        unclaimed.add(line);
      }
      return null;
    }

    private static boolean startsWithAny(String line, String... prefixes) {
      for (String p : prefixes) {
        if (line.startsWith(p)) {
          return true;
        }
      }
      return false;
    }

    /** Sends a signal ({@code KILL}, {@code STOP}, {@code CONT}) to the holder's JVM. */
    public void signal(String sig) {
      try {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
          throw new IllegalStateException("kill -" + sig + " " + process.pid() + " failed");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        try {
          signal("CONT");
        } catch (RuntimeException ignored) {
          // It may have died between the check and the signal.
        }
        process.destroyForcibly();
      }
    }
  }
}
