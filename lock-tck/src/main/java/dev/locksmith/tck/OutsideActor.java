package dev.locksmith.tck;

import dev.locksmith.spi.LockMode;

/**
 * Changes the store behind the clients' backs, as an operator or another program would, for the
 * kit's rules about holds lost to an outside actor.
 *
 * <p>A store's contract test implements it with the store's own client: a Redis {@code DEL} of the
 * lock's key, a memcached {@code delete}, an SQL {@code DELETE} of the row, a ZooKeeper {@code
 * delete} of the lock's nodes. The kit expects the holder to be told: its lease is lost.
 */
public interface OutsideActor {

  /**
   * Deletes every hold of kind {@code mode} on the lock called {@code name} (the name as the kit
   * gave it to the client; the actor applies the store's key prefix and encoding) directly in the
   * store, without going through any lock client. Returns once the store has done it.
   */
  void deleteHolds(String name, LockMode mode);
}
