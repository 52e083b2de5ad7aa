/**
 * The etcd lock store: one etcd lease per hold, the key's create revision as fencing token, and
 * owner-checked transactions for re-entry, extend and release, over etcd's v3 JSON gateway. Open it
 * with {@code LockClient.open("etcd://host:2379[,host:2379…]")}; see {@link
 * dev.locksmith.etcd.EtcdLockProvider} for the URI and {@link dev.locksmith.etcd.EtcdLockStore} for
 * what the store promises.
 */
@NullMarked
package dev.locksmith.etcd;

import org.jspecify.annotations.NullMarked;
