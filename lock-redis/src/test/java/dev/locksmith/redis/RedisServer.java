package dev.locksmith.redis;

import dev.locksmith.tck.StoreFaults;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} child process on a free loopback port, for tests: it can be paused
 * (SIGSTOP), resumed (SIGCONT), killed (SIGKILL) and restarted on the same port. Fails with how to
 * install Redis when the binary is missing.
 */
public final class RedisServer implements StoreFaults, AutoCloseable {

  private final int port;
  private final Path dir;
  private final List<String> extraArgs;
  private Process process;

  private RedisServer(int port, Path dir, List<String> extraArgs) {
    this.port = port;
    this.dir = dir;
    this.extraArgs = extraArgs;
  }

  /** Starts a server with append-only persistence (fsync every second) plus {@code extraArgs}. */
  public static RedisServer startPersistent(String... extraArgs) {
    List<String> args = new ArrayList<>(List.of("--appendonly", "yes"));
    args.addAll(List.of(extraArgs));
    return start(args);
  }

  /** Starts a server that keeps nothing across a restart, plus {@code extraArgs}. */
  public static RedisServer startVolatile(String... extraArgs) {
    List<String> args = new ArrayList<>(List.of("--appendonly", "no"));
    args.addAll(List.of(extraArgs));
    return start(args);
  }

  private static RedisServer start(List<String> args) {
    String binary = binary();
    try {
      Path dir = Files.createTempDirectory("redis-");
      RedisServer s = new RedisServer(freePort(), dir, List.copyOf(args));
      s.launch(binary);
      return s;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start redis-server: " + e, e);
    }
  }

  /** The path of {@code redis-server}; fails with how to install it. */
  static String binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      File f = new File(dir, "redis-server");
      if (f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    throw new IllegalStateException(
        "redis-server is not on the PATH; install it (Debian/Ubuntu: apt-get install"
            + " redis-server) to run the Redis lock tests");
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void launch(String binary) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                binary,
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--protected-mode",
                "no",
                "--daemonize",
                "no",
                "--logfile",
                dir.resolve("redis.log").toString()));
    cmd.addAll(extraArgs);
    try {
      process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + cmd + ": " + e, e);
    }
    awaitAccepting();
  }

  private void awaitAccepting() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "redis-server exited with " + process.exitValue() + "; see " + dir + "/redis.log");
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        s.setSoTimeout(500);
        int b = s.getInputStream().read();
        if (b == '+' || b == '-') {
          return;
        }
      } catch (IOException e) {
        // Not yet; try again shortly.
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting redis-server", e);
      }
    }
    throw new IllegalStateException("redis-server on port " + port + " did not start in 10 s");
  }

  /** The port. */
  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:PORT}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** {@code 127.0.0.1:PORT}. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  private void signal(String sig) {
    try {
      Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
      if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("kill -" + sig + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot signal redis-server: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling redis-server", e);
    }
  }

  @Override
  public void pause() {
    signal("STOP");
  }

  @Override
  public void resume() {
    signal("CONT");
  }

  @Override
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void restart() {
    if (process.isAlive()) {
      kill();
    }
    launch(binary());
  }

  /** Runs {@code redis-cli} against this server with {@code args}; returns its output. */
  public String cli(String... args) {
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor(10, TimeUnit.SECONDS);
      return out.strip();
    } catch (IOException e) {
      throw new IllegalStateException("redis-cli failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      signal("CONT");
      kill();
    }
  }
}
