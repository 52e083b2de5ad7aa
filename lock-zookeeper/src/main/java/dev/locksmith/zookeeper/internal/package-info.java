/** Internals of the ZooKeeper store; not an API, may change without notice. */
@NullMarked
package dev.locksmith.zookeeper.internal;

import org.jspecify.annotations.NullMarked;
