/**
 * The Redis stores' internals: key layout, Lua scripts, the script and WATCH strategies, the shared
 * pub/sub channel and the Lettuce connections. Not an API: it may change in any release.
 */
@NullMarked
package dev.locksmith.redis.internal;

import org.jspecify.annotations.NullMarked;
