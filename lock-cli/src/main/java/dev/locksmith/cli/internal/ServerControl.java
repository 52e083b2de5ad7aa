package dev.locksmith.cli.internal;

/** Breaks and mends a store the comparison started: pause, resume, kill, restart. */
public interface ServerControl {

  /** Whether {@link #pause()} is possible (not for a server that runs inside this JVM). */
  default boolean canPause() {
    return true;
  }

  /** Stops the store from answering; it keeps its state. */
  void pause();

  /** Lets a paused store answer again. */
  void resume();

  /** Kills the store; state it did not persist is gone. */
  void kill();

  /** Starts a killed store again on the same address and waits until it accepts connections. */
  void restart();
}
