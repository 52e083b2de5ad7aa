/**
 * The memcached lock store: an {@code add} lock with CAS-checked renewal and release, over
 * spymemcached's binary protocol. Open it with {@code LockClient.open("memcached://host:11211")} or
 * wrap your own client with {@link dev.locksmith.memcached.MemcachedLockStore}. Read the module's
 * README for exactly what memcached can and cannot promise.
 */
@NullMarked
package dev.locksmith.memcached;

import org.jspecify.annotations.NullMarked;
