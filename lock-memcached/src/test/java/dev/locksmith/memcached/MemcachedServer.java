package dev.locksmith.memcached;

import dev.locksmith.tck.StoreFaults;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real memcached (Debian's {@code /usr/bin/memcached}) run as a child process on a free loopback
 * port, with the faults the kit and the fault tests need: {@code SIGSTOP}/{@code SIGCONT}, {@code
 * SIGKILL} and a restart on the same port. A missing binary fails the test with the install
 * command.
 */
final class MemcachedServer implements StoreFaults, AutoCloseable {

  private final String binary;
  private final int port;
  private final int memoryMegabytes;
  private Process process;

  private MemcachedServer(String binary, int port, int memoryMegabytes) {
    this.binary = binary;
    this.port = port;
    this.memoryMegabytes = memoryMegabytes;
  }

  /** Starts memcached with its default memory limit (64 MB). */
  static MemcachedServer start() {
    return start(64);
  }

  /** Starts memcached with a memory limit of {@code megabytes} (tiny limits force eviction). */
  static MemcachedServer start(int megabytes) {
    MemcachedServer s = new MemcachedServer(findBinary(), freePort(), megabytes);
    s.launch();
    return s;
  }

  int port() {
    return port;
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  String uri() {
    return "memcached://" + address();
  }

  long pid() {
    return process.pid();
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
    if (process != null && process.isAlive()) {
      signal("CONT"); // a stopped process dies on SIGKILL too, but keep the order plain
      process.destroyForcibly();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("memcached pid " + process.pid() + " did not die");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while killing memcached", e);
      }
    }
  }

  @Override
  public void restart() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("memcached is still running; kill() it first");
    }
    launch();
  }

  /** Sends {@code flush_all} over a raw text-protocol socket. */
  void flushAll() {
    String reply = command("flush_all");
    if (!reply.startsWith("OK")) {
      throw new IllegalStateException("flush_all answered " + reply);
    }
  }

  /** One statistic from {@code stats}, such as {@code evictions}. */
  long stat(String name) {
    String reply = command("stats");
    for (String line : reply.split("\r\n")) {
      String[] parts = line.split(" ");
      if (parts.length == 3 && parts[0].equals("STAT") && parts[1].equals(name)) {
        return Long.parseLong(parts[2]);
      }
    }
    throw new IllegalStateException("memcached stats has no " + name + ": " + reply);
  }

  @Override
  public void close() {
    kill();
  }

  private void launch() {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary);
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.add("-u");
      cmd.add("nobody");
    }
    cmd.addAll(
        List.of(
            "-l",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-U",
            "0",
            "-m",
            Integer.toString(memoryMegabytes),
            "-c",
            "1024"));
    try {
      Path log = Files.createTempFile("memcached-" + port + "-", ".log");
      process =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    } catch (IOException e) {
      throw new IllegalStateException("could not start " + String.join(" ", cmd), e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "memcached exited at start with status " + process.exitValue() + ": " + cmd);
      }
      try {
        if (command("version").startsWith("VERSION")) {
          return;
        }
      } catch (IllegalStateException e) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("memcached did not accept connections on " + port, e);
        }
      }
      try {
        Thread.sleep(20); // polling a child process's port; nothing to await on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting memcached", e);
      }
    }
  }

  private String command(String line) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder sb = new StringBuilder();
      byte[] buf = new byte[8192];
      while (true) {
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        sb.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
        String text = sb.toString();
        if (text.endsWith("END\r\n")
            || text.startsWith("OK\r\n")
            || text.startsWith("VERSION") && text.endsWith("\r\n")
            || text.startsWith("ERROR")) {
          break;
        }
      }
      return sb.toString();
    } catch (IOException e) {
      throw new IllegalStateException("memcached on port " + port + ": " + e, e);
    }
  }

  private void signal(String sig) {
    try {
      Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
      if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("kill -" + sig + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not signal memcached", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling memcached", e);
    }
  }

  private static String findBinary() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, "memcached");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    for (String path : List.of("/usr/bin/memcached", "/usr/local/bin/memcached")) {
      if (new File(path).canExecute()) {
        return path;
      }
    }
    throw new AssertionError(
        "memcached is not installed (no memcached on PATH); these tests need a real server:"
            + " install it with 'apt-get install memcached' (Debian/Ubuntu) or 'brew install"
            + " memcached'");
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port", e);
    }
  }
}
