package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.transcoders.Transcoder;
import net.spy.memcached.transcoders.WhalinTranscoder;

/** The memcached targets: the raw spymemcached bound. */
final class MemcachedTargets {

  private MemcachedTargets() {}

  /** A client as the raw targets use it: binary protocol, one connection, connected. */
  static MemcachedClient connect(String hostPort) throws IOException {
    int colon = hostPort.lastIndexOf(':');
    MemcachedClient client =
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
    return client;
  }

  /**
   * Releases the lock at {@code key}: {@code gets} to check that {@code ours} accepts its value,
   * then {@code delete} of exactly that version (its CAS value).
   */
  static void deleteOwn(
      MemcachedClient client, Transcoder<Object> transcoder, String key, Predicate<Object> ours)
      throws Exception {
    CASValue<Object> current = client.gets(key, transcoder);
    if (current == null || !ours.test(current.getValue())) {
      throw new IllegalStateException("raw memcached lock " + key + " was not held");
    }
    if (!client.delete(key, current.getCas()).get()) {
      throw new IllegalStateException("raw memcached lock " + key + " changed meanwhile");
    }
  }

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
      client = connect(hostPort);
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
            return () -> deleteOwn(client, transcoder, key, owner::equals);
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

  /**
   * The raw chain plus a fencing token, the work Locksmith's store does by default: {@code add} of
   * the item with a pending token and an {@code incr} of the lock's counter pipelined right behind
   * it (one round trip; memcached runs the incr after the add, so tokens rise across holders), a
   * {@code cas} that writes the token into the item (so a reentrant acquire could return it), then
   * {@code gets} and {@code delete} with the CAS value to release.
   */
  static final class RawFenced implements LockTarget {
    private final MemcachedClient client;
    private final Transcoder<Object> transcoder = new WhalinTranscoder();
    private final String owner = UUID.randomUUID().toString();

    RawFenced(String hostPort) throws IOException {
      client = connect(hostPort);
    }

    @Override
    public String id() {
      return "memcached/raw-fenced";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String key = "raw-fenced:" + name;
      return Waits.retry(
          key,
          () -> {
            OperationFuture<Boolean> add = client.add(key, 30, owner + " pending", transcoder);
            OperationFuture<Long> incr = client.asyncIncr(key + ":fence", 1L, 1L, 0);
            if (!add.get()) {
              return null; // Busy; the token drawn is burnt (gaps are allowed).
            }
            long token = incr.get();
            CASResponse written =
                client.cas(key, add.getCas(), 30, owner + " " + token, transcoder);
            if (written != CASResponse.OK) {
              throw new IllegalStateException("raw fenced memcached lock " + key + " was lost");
            }
            String mine = owner + " ";
            return () -> deleteOwn(client, transcoder, key, v -> v.toString().startsWith(mine));
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
