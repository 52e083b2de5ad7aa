/**
 * Internals of the memcached store: the calls through spymemcached, the fencing counters, the value
 * format and the key encoding; not for users.
 */
@NullMarked
package dev.locksmith.memcached.internal;

import org.jspecify.annotations.NullMarked;
