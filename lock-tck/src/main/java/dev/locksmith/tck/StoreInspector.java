package dev.locksmith.tck;

import java.time.Duration;

/**
 * Looks at what the store under test keeps, and drops what a cache would drop, behind the clients'
 * backs: for the kit's rules about the store's footprint and about tokens after eviction.
 *
 * <p>A store's fixture implements it with the store's own tools: a Redis {@code SCAN} of the
 * prefix, a SQL {@code COUNT} of the lock tables' rows, the nodes under a ZooKeeper base path, an
 * etcd range count, a memcached {@code lru_crawler metadump}. A store's entries are everything it
 * wrote for lock names that clients with one key prefix used: hold records, waiting marks, queue
 * nodes and parents, and state shared between names under that prefix (a token counter).
 */
public interface StoreInspector {

  /**
   * How many entries (keys, rows, nodes, items) the store holds now for clients with {@code
   * keyPrefix}, shared state included. Only entries whose key starts with the prefix as the store
   * lays it out count: the kit gives every rule a prefix of its own.
   */
  long entries(String keyPrefix);

  /**
   * Drops every entry for clients with {@code keyPrefix} that no live hold needs: released or
   * expired records, waiting marks, empty parents, and shared state such as token counters, as a
   * Redis with {@code maxmemory-policy allkeys-lru} or a memcached under memory pressure would
   * evict it. Live holds stay. Returns once the store has dropped them.
   */
  void evictIdle(String keyPrefix);

  /**
   * How many entries the store may keep for one key prefix however many names were used: its state
   * shared between names (a token counter, one per Redis Cluster hash slot), and what it keeps of a
   * prefix itself. Default 4.
   */
  default long sharedEntries() {
    return 4;
  }

  /**
   * How long after a release, an expiry or a session's end the store may take to remove what it
   * kept for the hold (ZooKeeper's container reaper, a SQL store's sweep of expired rows). Default
   * zero: gone with the hold.
   */
  default Duration cleanupDelay() {
    return Duration.ZERO;
  }
}
