package dev.locksmith.spi;

/**
 * Which kind of hold an operation is about.
 *
 * <p>{@link #EXCLUSIVE} is the plain lock of {@code LockClient.lock(name)}. {@link #READ} and
 * {@link #WRITE} are the two sides of {@code LockClient.readWriteLock(name)}; they exclude each
 * other but live apart from the exclusive lock of the same name.
 */
public enum LockMode {
  /** One owner at a time. */
  EXCLUSIVE,
  /** Shared among readers while no writer holds the name. */
  READ,
  /** One writer while no reader holds the name; a waiting writer keeps new readers out. */
  WRITE
}
