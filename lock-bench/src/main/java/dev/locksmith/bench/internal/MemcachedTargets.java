package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.transcoders.Transcoder;
import net.spy.memcached.transcoders.WhalinTranscoder;

/** The memcached targets: the raw spymemcached bounds, without and with a fencing token. */
final class MemcachedTargets {

  private MemcachedTargets() {}

  /**
   * What both raw chains share: one spymemcached client (binary protocol, one connection), an owner
   * id for this target, and the owner-checked release.
   */
  abstract static class Chain implements LockTarget {
    final MemcachedClient client;
    final Transcoder<Object> transcoder = new WhalinTranscoder();
    final String owner = UUID.randomUUID().toString();

    Chain(String hostPort) throws IOException {
      client = connect(hostPort);
    }

    /**
     * Releases the lock at {@code key}: {@code gets} to check that {@code ours} accepts its value,
     * then {@code delete} of exactly that version (its CAS value).
     */
    final void deleteOwn(String key, Predicate<Object> ours) throws Exception {
      CASValue<Object> current = client.gets(key, transcoder);
      if (current == null || !ours.test(current.getValue())) {
        throw new IllegalStateException(id() + " lock " + key + " was not held");
      }
      if (!client.delete(key, current.getCas()).get()) {
        throw new IllegalStateException(id() + " lock " + key + " changed meanwhile");
      }
    }

    @Override
    public final boolean blocking() {
      return false;
    }

    @Override
    public final void close() {
      client.shutdown();
    }

    private static MemcachedClient connect(String hostPort) throws IOException {
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
  }

  /**
   * The fewest round trips of a correct memcached lock on bare spymemcached (binary protocol):
   * {@code add} with an expiry to acquire; {@code gets} then {@code delete} with the CAS value to
   * release only the lock this owner holds.
   */
  static final class Raw extends Chain {
    Raw(String hostPort) throws IOException {
      super(hostPort);
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
            return () -> deleteOwn(key, owner::equals);
          });
    }
  }

  /**
   * The raw chain plus a fencing token, the work Locksmith's store does by default: {@code add} of
   * the item with a pending token and an {@code incr} of the lock's counter pipelined right behind
   * it (one round trip; memcached runs the incr after the add, so tokens rise across holders), a
   * {@code cas} that writes the token into the item (so a reentrant acquire could return it), then
   * {@code gets} and {@code delete} with the CAS value to release. Each hold is an owner of its own
   * (the target's id and a sequence number), as in Locksmith.
   */
  static final class RawFenced extends Chain {
    private final AtomicLong holds = new AtomicLong();

    RawFenced(String hostPort) throws IOException {
      super(hostPort);
    }

    @Override
    public String id() {
      return "memcached/raw-fenced";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String key = "raw-fenced:" + name;
      String who = owner + "/" + holds.incrementAndGet();
      return Waits.retry(
          key,
          () -> {
            OperationFuture<Boolean> add = client.add(key, 30, who + " pending", transcoder);
            OperationFuture<Long> incr = client.asyncIncr(key + ":fence", 1L, 1L, 0);
            if (!add.get()) {
              return null; // Busy; the token drawn is burnt (gaps are allowed).
            }
            long token = incr.get();
            CASResponse written = client.cas(key, add.getCas(), 30, who + " " + token, transcoder);
            if (written != CASResponse.OK) {
              throw new IllegalStateException(id() + " lock " + key + " was lost");
            }
            String mine = who + " ";
            return () -> deleteOwn(key, v -> v.toString().startsWith(mine));
          });
    }
  }
}
