/**
 * Redis lock stores on Lettuce: {@link dev.locksmith.redis.RedisLockStore} for a single node, a
 * Sentinel-managed master or a cluster, {@link dev.locksmith.redis.RedlockStore} for Redlock over
 * independent masters, and {@link dev.locksmith.redis.RedisLockProvider}, which opens both from
 * URIs.
 */
@NullMarked
package dev.locksmith.redis;

import org.jspecify.annotations.NullMarked;
