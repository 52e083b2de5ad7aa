package dev.locksmith.cli.internal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A store server run as a child process on a loopback port (redis-server, memcached), which the
 * comparison can pause ({@code SIGSTOP}), resume ({@code SIGCONT}), kill ({@code SIGKILL}) and
 * restart on the same port.
 */
public final class ServerProcess implements ServerControl, AutoCloseable {

  private final String name;
  private final List<String> command;
  private final int port;
  private final Path log;
  private @Nullable Process process;

  private ServerProcess(String name, List<String> command, int port, Path log) {
    this.name = name;
    this.command = command;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code command} (which must make the server listen on {@code port}) and waits until it
   * accepts connections.
   *
   * @throws IllegalStateException if it does not come up within 20 s; the message has its log
   */
  public static ServerProcess start(String name, List<String> command, int port) {
    try {
      Path log = Files.createTempFile("locksmith-" + name + "-", ".log");
      ServerProcess p = new ServerProcess(name, command, port, log);
      p.launch();
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A free TCP port on the loopback interface. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code binary} is an executable on the PATH. */
  public static boolean onPath(String binary) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, binary))) {
        return true;
      }
    }
    return false;
  }

  public int port() {
    return port;
  }

  private void launch() {
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "could not start " + name + " (" + command.get(0) + "): " + e, e);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited at start; its log:\n" + readLog());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        sleep(50);
      }
    }
    throw new IllegalStateException(
        name + " did not listen on port " + port + "; its log:\n" + readLog());
  }

  private String readLog() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private void signal(String sig) {
    Process p = process;
    if (p == null || !p.isAlive()) {
      throw new IllegalStateException(name + " is not running");
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + sig + " " + p.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
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
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void restart() {
    launch();
  }

  @Override
  public void close() {
    Process p = process;
    if (p != null && p.isAlive()) {
      try {
        signal("CONT");
      } catch (RuntimeException ignored) {
        // Best effort: a stopped process must be continued to die of SIGTERM.
      }
      p.destroy();
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
