/**
 * Locksmith: one API for distributed locks over Redis, Memcached, ZooKeeper and SQL databases.
 *
 * <p>Start at {@link dev.locksmith.LockClient}: open one for a store URI, take a {@link
 * dev.locksmith.DistributedLock} by name, and hold it through the {@link dev.locksmith.Lease} that
 * an acquire returns.
 */
@NullMarked
package dev.locksmith;

import org.jspecify.annotations.NullMarked;
