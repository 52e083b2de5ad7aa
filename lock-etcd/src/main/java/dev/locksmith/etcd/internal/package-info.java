/** Internals of the etcd store (the JSON gateway client, the value format); not for users. */
@NullMarked
package dev.locksmith.etcd.internal;

import org.jspecify.annotations.NullMarked;
