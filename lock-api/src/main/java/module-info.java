/**
 * Locksmith's API, its store SPI, the engine and the in-memory {@code mem:} store.
 *
 * <p>{@code dev.locksmith} is the API users call, {@code dev.locksmith.spi} what a store module
 * implements, {@code dev.locksmith.mem} the reference store. The engine ({@code
 * dev.locksmith.internal}) is open only to the test kit and the command line, which drive clients
 * the way a crashed process would; nothing else may depend on it. Providers are found with {@link
 * java.util.ServiceLoader}.
 */
module dev.locksmith.api {
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports dev.locksmith;
  exports dev.locksmith.spi;
  exports dev.locksmith.mem;
  exports dev.locksmith.internal to
      dev.locksmith.tck,
      dev.locksmith.cli;

  uses dev.locksmith.spi.LockProvider;

  provides dev.locksmith.spi.LockProvider with
      dev.locksmith.mem.MemLockProvider;
}
