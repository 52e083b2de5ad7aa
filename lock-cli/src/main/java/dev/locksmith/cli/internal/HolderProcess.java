package dev.locksmith.cli.internal;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A lock holder in a child JVM, so that a holder can really die ({@code SIGKILL}) or freeze ({@code
 * SIGSTOP}) mid-hold.
 *
 * <p>Protocol on standard output: {@code ACQUIRED <token-or-0>} once it holds the lock, then {@code
 * LOST <reason>} if it is told the lease was lost. It holds until killed or until its standard
 * input closes.
 */
public final class HolderProcess {

  private HolderProcess() {}

  /** Arguments: URI, lock name, lease time in milliseconds. */
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: HolderProcess <uri> <lock-name> <lease-ms>");
      System.exit(2);
    }
    LockOptions options =
        LockOptions.builder().leaseTime(Duration.ofMillis(Long.parseLong(args[2]))).build();
    LockClient client = LockClient.open(args[0], options);
    Lease lease = client.lock(args[1]).acquire(Duration.ofSeconds(30));
    long token =
        client.capabilities().contains(dev.locksmith.Capability.FENCING) ? lease.fencingToken() : 0;
    lease.onLost(
        (l, why) -> {
          System.out.println("LOST " + why.reason());
          System.out.flush();
        });
    System.out.println("ACQUIRED " + token);
    System.out.flush();
    while (System.in.read() >= 0) {
      // Hold until the parent closes our input or kills us.
    }
    lease.release();
    client.close();
  }

  /**
   * Starts a holder of {@code name} on {@code uri} in a child JVM with this JVM's class path and
   * waits until it holds the lock.
   *
   * @return the process and the token it reported
   */
  public static Started start(String uri, String name, Duration lease) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add(HolderProcess.class.getName());
    cmd.add(uri);
    cmd.add(name);
    cmd.add(Long.toString(lease.toMillis()));
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      java.io.BufferedReader out =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
      String line = out.readLine();
      if (line == null || !line.startsWith("ACQUIRED ")) {
        p.destroyForcibly();
        throw new IllegalStateException("holder process did not acquire: " + line);
      }
      return new Started(p, Long.parseLong(line.substring("ACQUIRED ".length()).trim()), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A started holder: its process, its token, and the rest of its output. */
  public static final class Started implements AutoCloseable {
    private final Process process;
    private final long token;
    private final java.io.BufferedReader output;

    Started(Process process, long token, java.io.BufferedReader output) {
      this.process = process;
      this.token = token;
      this.output = output;
    }

    public Process process() {
      return process;
    }

    public long token() {
      return token;
    }

    public java.io.BufferedReader output() {
      return output;
    }

    /** Sends a signal ({@code KILL}, {@code STOP}, {@code CONT}) to the holder. */
    public void signal(String sig) {
      try {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
        kill.waitFor(10, TimeUnit.SECONDS);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        signal("CONT");
        process.destroyForcibly();
      }
    }
  }
}
