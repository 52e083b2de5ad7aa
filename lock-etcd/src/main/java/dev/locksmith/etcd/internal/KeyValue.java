package dev.locksmith.etcd.internal;

/**
 * A key as etcd's {@code range} reports it.
 *
 * @param createRevision the revision that created the key (since its last deletion); the fencing
 *     token of its hold
 * @param modRevision the revision of its last change; compared in owner-checked transactions
 * @param lease the etcd lease the key is attached to, 0 for none
 * @param value its value
 */
public record KeyValue(long createRevision, long modRevision, long lease, byte[] value) {}
