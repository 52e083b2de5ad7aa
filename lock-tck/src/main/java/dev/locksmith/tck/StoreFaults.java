package dev.locksmith.tck;

/**
 * Breaks and mends the store under test, for the kit's store-failure tests.
 *
 * <p>An implementer whose fixture runs the store as a child process implements these with signals:
 * {@link #pause()} is {@code SIGSTOP} (the store stops answering but keeps its data and its clock
 * runs on), {@link #kill()} is {@code SIGKILL}, {@link #restart()} starts it again on the same
 * address. Each method returns once the change has taken effect (after {@link #restart()}, the
 * store accepts connections).
 */
public interface StoreFaults {

  /** Stops the store from answering; it keeps its state. */
  void pause();

  /** Lets a paused store answer again. */
  void resume();

  /** Kills the store; state it did not persist is gone. */
  void kill();

  /** Starts a killed store again on the same address and waits until it accepts connections. */
  void restart();
}
