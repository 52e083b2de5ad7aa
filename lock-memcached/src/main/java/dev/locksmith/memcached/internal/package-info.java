/** Internals of the memcached store (value format, key encoding); not for users. */
@NullMarked
package dev.locksmith.memcached.internal;

import org.jspecify.annotations.NullMarked;
