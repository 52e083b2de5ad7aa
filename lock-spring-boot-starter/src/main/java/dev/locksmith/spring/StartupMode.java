package dev.locksmith.spring;

/**
 * What the starter does when the lock store cannot be reached while the application starts (the
 * {@code locksmith.startup} property). It applies to the client the starter builds (from {@code
 * locksmith.uri} or the application's {@code DataSource}), and only to an unreachable store: a
 * malformed URI, an unknown scheme or a missing store module always fails startup.
 */
public enum StartupMode {
  /**
   * Start without the store (the default). One WARN line says so; the {@code locksmith} health
   * indicator is DOWN; every {@link Locked} call and {@link LockTemplate} action fails at once with
   * {@link dev.locksmith.LockStoreException} (scheduled {@code @Locked} jobs are skipped), so
   * nothing ever runs unlocked; the client connects in the background and, once the store answers,
   * one INFO line says so and locks work.
   */
  LENIENT,
  /**
   * Fail startup, with one ERROR line that names the store and the cause: for deployments that
   * would rather not start than start without their locks.
   */
  STRICT
}
