/** The memcached store, on spymemcached. */
module dev.locksmith.memcached {
  requires transitive dev.locksmith.api;
  requires transitive spymemcached;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.locksmith.memcached;

  provides dev.locksmith.spi.LockProvider with
      dev.locksmith.memcached.MemcachedLockProvider;
}
