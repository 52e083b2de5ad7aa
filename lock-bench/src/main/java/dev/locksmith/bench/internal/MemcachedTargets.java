package dev.locksmith.bench.internal;

import dev.locksmith.bench.LockTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
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
import net.spy.memcached.ops.StatusCode;
import net.spy.memcached.transcoders.Transcoder;
import net.spy.memcached.transcoders.WhalinTranscoder;
import org.jspecify.annotations.Nullable;

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
   * The raw chain plus a fencing token, the work Locksmith's store does by default on one server,
   * with its key layout under the prefix {@code raw-fenced:}: the {@code add} of the lock item
   * ({@code raw-fenced:lock:<name>}) with a pending token, and pipelined right behind it on the
   * same connection (one round trip) the {@code incr} of the counter every name on the server
   * shares ({@code raw-fenced:fence#0}, created at the wall clock in nanoseconds when missing, so
   * that a lost counter restarts above every token drawn before) and an {@code incr} of the name's
   * per-name counter of earlier versions ({@code raw-fenced:fence:<name>}) that does not create it.
   * Memcached runs both after the add, so tokens rise across holders. Then a {@code cas} that
   * writes the token into the item (so a reentrant acquire could return it), and {@code gets} and
   * {@code delete} with the CAS value to release. Nothing stays per name: only the shared counter.
   *
   * <p>As in the store, an {@code incr} that lost a race to create the missing counter (answered
   * {@code NOT_STORED}) is sent again, and a per-name counter that exists (a client of an earlier
   * version drew from it) lifts the shared counter above its value and is deleted before the
   * acquire returns; neither happens in the benchmark, whose server starts empty. Each hold is an
   * owner of its own (the target's id and a sequence number), as in Locksmith.
   */
  static final class RawFenced extends Chain {
    /** The counter every name shares, as the store's {@code <prefix>fence#0} on one server. */
    static final String COUNTER = "raw-fenced:fence#0";

    private final AtomicLong holds = new AtomicLong();

    RawFenced(String hostPort) throws IOException {
      super(hostPort);
    }

    /** The lock item of {@code name}, as the store's {@code <prefix>lock:<name>}. */
    static String lockKey(String name) {
      return "raw-fenced:lock:" + name;
    }

    /** The per-name counter an earlier version kept for {@code name}: read, never created. */
    static String legacyFenceKey(String name) {
      return "raw-fenced:fence:" + name;
    }

    /** The owner of the next hold: the target's id and a sequence number, one owner per hold. */
    String ownerOfNextHold() {
      return owner + "/" + holds.incrementAndGet();
    }

    @Override
    public String id() {
      return "memcached/raw-fenced";
    }

    @Override
    public Held acquire(String name) throws Exception {
      String who = ownerOfNextHold();
      return Waits.retry(lockKey(name), () -> tryOnce(name, who));
    }

    /** One attempt as {@code who}: the held lock, or null if another owner holds it. */
    @Nullable Held tryOnce(String name, String who) throws Exception {
      String key = lockKey(name);
      String legacy = legacyFenceKey(name);
      OperationFuture<Boolean> add = client.add(key, 30, who + " pending", transcoder);
      OperationFuture<Long> incr = drawFromCounter(1, 0);
      // Expiry -1 (0xffffffff in the binary protocol): an incr that does not create the counter.
      OperationFuture<Long> old = client.asyncIncr(legacy, 1L, 0L, -1);
      if (!add.get()) {
        return null; // Busy; the token drawn is burnt (gaps are allowed).
      }
      long token = settle(incr, 1, 0);
      old.get();
      if (old.getStatus().getStatusCode() != StatusCode.ERR_NOT_FOUND) {
        long oldValue = value(old);
        if (oldValue >= token) {
          long by = oldValue - token + 1;
          token = settle(drawFromCounter(by, oldValue + 1), by, oldValue + 1);
        }
        client.delete(legacy).get();
      }
      CASResponse written = client.cas(key, add.getCas(), 30, who + " " + token, transcoder);
      if (written != CASResponse.OK) {
        throw new IllegalStateException(id() + " lock " + key + " was lost");
      }
      String mine = who + " ";
      return () -> deleteOwn(key, v -> v.toString().startsWith(mine));
    }

    /**
     * Sends an {@code incr} by {@code by} of the shared counter, which memcached creates at the
     * wall clock in nanoseconds (or {@code atLeast}, if higher) when it is missing.
     */
    private OperationFuture<Long> drawFromCounter(long by, long atLeast) {
      Instant now = Instant.now();
      long clock = now.getEpochSecond() * 1_000_000_000L + now.getNano();
      return client.asyncIncr(COUNTER, by, Math.max(clock, atLeast), 0);
    }

    /** What {@code pending} drew; sent again while it lost a race to create the counter. */
    private long settle(OperationFuture<Long> pending, long by, long atLeast) throws Exception {
      OperationFuture<Long> current = pending;
      for (int race = 0; race < 16; race++) {
        current.get();
        if (current.getStatus().getStatusCode() != StatusCode.ERR_NOT_STORED) {
          return value(current);
        }
        current = drawFromCounter(by, atLeast);
      }
      return value(current);
    }

    private long value(OperationFuture<Long> incr) throws Exception {
      Long value = incr.get();
      if (!incr.getStatus().isSuccess() || value == null || value < 0) {
        throw new IllegalStateException(
            id() + " incr of " + incr.getKey() + " failed: " + incr.getStatus());
      }
      return value;
    }
  }
}
