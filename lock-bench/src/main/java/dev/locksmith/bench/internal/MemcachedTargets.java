package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.transcoders.Transcoder;
import net.spy.memcached.transcoders.WhalinTranscoder;

/** The memcached targets: the raw spymemcached bound. */
final class MemcachedTargets {

  private MemcachedTargets() {}

  /**
   * The fewest round trips of a correct memcached lock on bare spymemcached (binary protocol):
   * {@code add} with an expiry to acquire; {@code gets} then {@code delete} with the CAS value to
   * release only the lock this owner holds.
   */
  static final class Raw implements LockTarget {
    private final MemcachedClient client;
    private final Transcoder<Object> transcoder = new WhalinTranscoder();
    private final String owner = UUID.randomUUID().toString();

    Raw(String hostPort) throws IOException {
      int colon = hostPort.lastIndexOf(':');
      client =
          new MemcachedClient(
              new ConnectionFactoryBuilder()
                  .setProtocol(ConnectionFactoryBuilder.Protocol.BINARY)
                  .setFailureMode(FailureMode.Cancel)
                  .setOpTimeout(1000)
                  .setDaemon(true)
                  .build(),
              List.of(
                  new InetSocketAddress(
                      hostPort.substring(0, colon),
                      Integer.parseInt(hostPort.substring(colon + 1)))));
      // FailureMode.Cancel cancels operations sent before the connection is up (as Locksmith's
      // provider does, wait for it first).
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (client.getAvailableServers().isEmpty()) {
        if (System.nanoTime() - deadline > 0) {
          client.shutdown();
          throw new IOException("memcached at " + hostPort + " is not reachable");
        }
        try {
          Thread.sleep(2);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          client.shutdown();
          throw new IOException("interrupted while connecting to memcached", e);
        }
      }
    }

    @Override
    public String id() {
      return "memcached/raw";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String key = "raw:" + name;
      return Waits.retry(
          key,
          () -> {
            if (!client.add(key, 30, owner, transcoder).get()) {
              return null;
            }
            return () -> {
              CASValue<Object> current = client.gets(key, transcoder);
              if (current == null || !owner.equals(current.getValue())) {
                throw new IllegalStateException("raw memcached lock " + key + " was not held");
              }
              if (!client.delete(key, current.getCas()).get()) {
                throw new IllegalStateException("raw memcached lock " + key + " changed meanwhile");
              }
            };
          });
    }

    @Override
    public boolean blocking() {
      return false;
    }

    @Override
    public void close() {
      client.shutdown();
    }
  }
}
