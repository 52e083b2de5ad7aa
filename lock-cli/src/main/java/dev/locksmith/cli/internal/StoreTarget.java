package dev.locksmith.cli.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.fixture.RunningStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One store the comparison runs on: its name, how to open clients, and (for stores it started) how
 * to break it. Closing it stops what it started.
 */
public final class StoreTarget implements AutoCloseable {

  private final String name;
  private final String uri;
  private final @Nullable RunningStore running;
  private final @Nullable StoreFaults control;
  private final String whyNoControl;
  private final List<String> processes;
  private final List<AutoCloseable> resources = new ArrayList<>();

  private StoreTarget(
      String name,
      String uri,
      @Nullable RunningStore running,
      @Nullable StoreFaults control,
      String whyNoControl,
      List<String> processes) {
    this.name = name;
    this.uri = uri;
    this.running = running;
    this.control = control;
    this.whyNoControl = whyNoControl;
    this.processes = List.copyOf(processes);
  }

  /**
   * A store its fixture started, with the command lines of the processes the fixture started for it
   * (none for a server inside this JVM); the target stops it when closed.
   */
  public static StoreTarget of(String name, RunningStore running, List<String> processes) {
    java.util.Objects.requireNonNull(name, "name must not be null");
    java.util.Objects.requireNonNull(running, "running must not be null");
    java.util.Objects.requireNonNull(processes, "processes must not be null");
    StoreTarget t =
        new StoreTarget(
            name,
            running.uri(),
            running,
            running.faults().orElse(null),
            "its fixture cannot stop it",
            processes);
    t.resources.add(running);
    return t;
  }

  /** A live store given by URI: compared, never broken on purpose. */
  public static StoreTarget live(String name, String uri) {
    return new StoreTarget(
        name, uri, null, null, "a live store given by --uri is never broken on purpose", List.of());
  }

  /** Whether the command started this store (through its fixture), rather than given a URI. */
  public boolean startedHere() {
    return running != null;
  }

  /** The command lines of the processes started for the store (see {@link ChildProcesses}). */
  public List<String> processes() {
    return processes;
  }

  /** How long clients stay open after a restart (see {@link RunningStore#reconnectSettle()}). */
  public Duration reconnectSettle() {
    return running == null ? Duration.ZERO : running.reconnectSettle();
  }

  /** Registers something to close with the target (a server, a temporary directory). */
  public StoreTarget closing(AutoCloseable resource) {
    resources.add(resource);
    return this;
  }

  public String name() {
    return name;
  }

  public String uri() {
    return uri;
  }

  /** How to pause, kill and restart the store; null when it is not to be broken. */
  public @Nullable StoreFaults control() {
    return control;
  }

  /** Why there is no {@link #control()}, for the report. */
  public String whyNoControl() {
    return whyNoControl;
  }

  /**
   * Whether {@link #control()}'s pause freezes the store (connections stay open and go silent)
   * rather than stopping it (calls fail at once): the report says which kind of pause it ran.
   */
  public boolean pauseFreezes() {
    return control != null && running != null && running.pauseFreezes();
  }

  /** Whether a child process can open the store by its URI and share its locks. */
  public boolean sharedAcrossProcesses() {
    return running == null || running.sharedAcrossProcesses();
  }

  /**
   * The shortest lease the scenarios use on this store: its fixture's (memcached counts whole
   * seconds), 2 s on a live store.
   */
  public Duration shortLease() {
    return running == null ? Duration.ofSeconds(2) : running.shortLease();
  }

  /** What the store keeps and how to drop its idle state; empty for a live store. */
  public java.util.Optional<StoreInspector> inspector() {
    return running == null ? java.util.Optional.empty() : running.inspector();
  }

  /** A new client: a separate connection, standing for a separate process. */
  public LockClient open(LockOptions options) {
    return running == null ? LockClient.open(uri, options) : running.open(options);
  }

  @Override
  public void close() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        System.err.println("warning: stopping " + name + ": " + e);
      }
    }
  }
}
