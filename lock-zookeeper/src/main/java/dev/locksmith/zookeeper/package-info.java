/**
 * The ZooKeeper lock store: ephemeral sequential nodes on Apache Curator, with a fair queue of
 * waiters, read-write locks, fencing tokens from the nodes' creation zxid, and holds bound to the
 * ZooKeeper session. See {@link dev.locksmith.zookeeper.ZooKeeperLockStore}.
 */
@NullMarked
package dev.locksmith.zookeeper;

import org.jspecify.annotations.NullMarked;
