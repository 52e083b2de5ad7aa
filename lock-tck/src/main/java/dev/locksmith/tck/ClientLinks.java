package dev.locksmith.tck;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;

/**
 * Clients whose network path to the store the kit can break, for the rules about a client that
 * loses its own connection or session while the store stays up (a partition, a dead link, a
 * firewall that drops idle connections).
 *
 * <p>A fixture implements it by opening such clients through a {@link
 * dev.locksmith.tck.fixture.TcpProxy} of their own ({@link dev.locksmith.tck.fixture.ProxiedLinks}
 * does it for a store with one address): cutting the proxy closes the client's connections without
 * a goodbye to the store, and refuses new ones.
 */
public interface ClientLinks {

  /**
   * A new client (as {@code LockStoreContract.newClient} makes them) whose every connection to the
   * store passes through a link of its own. The kit closes it.
   */
  LockClient open(LockOptions options);

  /**
   * Breaks {@code client}'s link for good: its open connections close without the client telling
   * the store anything, and new ones are refused. Returns once done.
   *
   * @throws IllegalArgumentException if {@code client} was not opened by {@link #open}
   */
  void cut(LockClient client);
}
