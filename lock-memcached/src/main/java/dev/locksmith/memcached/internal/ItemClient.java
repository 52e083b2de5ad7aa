package dev.locksmith.memcached.internal;

import dev.locksmith.LockStoreException;
import dev.locksmith.spi.StoreFailure;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.spy.memcached.CASValue;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import net.spy.memcached.OperationTimeoutException;
import net.spy.memcached.internal.CheckedOperationTimeoutException;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.ops.OperationException;
import net.spy.memcached.ops.StatusCode;
import net.spy.memcached.protocol.binary.BinaryMemcachedNodeImpl;
import org.jspecify.annotations.Nullable;

/**
 * The memcached calls of the lock store on its text items, through spymemcached's binary protocol,
 * each waited for within the client's operation timeout.
 *
 * <p>Failures come as spymemcached gives them, for the engine to report ({@link #classify}): {@link
 * CheckedOperationTimeoutException} when no answer came in time, {@link CancellationException} when
 * spymemcached cancelled the operation (with {@code FailureMode.Cancel}: no connection to the key's
 * server), {@link OperationException} or {@link ErrorStatusException} when memcached answered with
 * an error, and {@link InterruptedException}. An operation given up on (timed out, interrupted) is
 * cancelled, so that it is not sent later if it still waits in the queue.
 */
public final class ItemClient {

  private static final TextTranscoder TEXT = TextTranscoder.INSTANCE;

  private final MemcachedClient client;
  private final String description;
  private final long timeoutMillis;
  private final boolean singleServer;
  private final int servers;

  /**
   * Calls through {@code client}; {@code description} names the server in messages.
   *
   * @throws IllegalArgumentException if {@code client} does not use the binary protocol
   */
  public ItemClient(MemcachedClient client, String description) {
    List<MemcachedNode> nodes = List.copyOf(client.getConnection().getLocator().getAll());
    for (MemcachedNode node : nodes) {
      if (!(node instanceof BinaryMemcachedNodeImpl)) {
        throw new IllegalArgumentException(
            "the MemcachedClient must use the binary protocol"
                + " (ConnectionFactoryBuilder.setProtocol(Protocol.BINARY)): releasing a lock needs"
                + " delete-with-CAS, which the text protocol does not have");
      }
    }
    this.client = client;
    this.description = description;
    this.timeoutMillis = Math.max(1, client.getOperationTimeout());
    this.singleServer = nodes.size() == 1;
    this.servers = nodes.size();
  }

  /** Sends an {@code add}, which creates the item only if the key is free; does not wait. */
  public PendingAdd add(String key, int expirySeconds, String value) {
    return new PendingAdd(client.add(key, expirySeconds, value, TEXT));
  }

  /**
   * The item at {@code key} and its CAS id, or null if there is none.
   *
   * @throws LockStoreException if the server keeps no CAS ids (it runs with {@code -C})
   */
  public @Nullable CASValue<String> gets(String key) throws Exception {
    return sendGets(key).item();
  }

  /** Sends a {@code gets} of {@code key}; does not wait. */
  public PendingGets sendGets(String key) {
    return new PendingGets(client.asyncGets(key, TEXT));
  }

  private @Nullable CASValue<String> item(OperationFuture<CASValue<String>> f, String key)
      throws Exception {
    CASValue<String> value = await(f);
    if (status(f, "gets", StatusCode.ERR_NOT_FOUND) != StatusCode.SUCCESS || value == null) {
      return null;
    }
    if (value.getCas() == 0) {
      // A delete or cas with id 0 is unconditional: owner-checked release and extend would
      // silently become plain ones.
      throw new LockStoreException(
          "memcached at "
              + description
              + " returned no CAS id for item '"
              + key
              + "': it runs with CAS disabled (-C), which an owner-checked lock cannot work with");
    }
    return value;
  }

  /**
   * Writes {@code value} onto version {@code casId} of the item at {@code key}.
   *
   * @return {@code SUCCESS}, {@code ERR_EXISTS} (the item is at another version) or {@code
   *     ERR_NOT_FOUND}
   */
  public StatusCode cas(String key, long casId, int expirySeconds, String value) throws Exception {
    return sendCas(key, casId, expirySeconds, value).status();
  }

  /** Sends a {@link #cas}; does not wait. */
  public PendingCas sendCas(String key, long casId, int expirySeconds, String value) {
    return new PendingCas(client.asyncCAS(key, casId, expirySeconds, value, TEXT));
  }

  /**
   * Deletes version {@code casId} of the item at {@code key}.
   *
   * @return {@code SUCCESS}, {@code ERR_EXISTS} (the item is at another version) or {@code
   *     ERR_NOT_FOUND}
   */
  public StatusCode delete(String key, long casId) throws Exception {
    OperationFuture<Boolean> f = client.delete(key, casId);
    await(f);
    return status(f, "delete", StatusCode.ERR_EXISTS, StatusCode.ERR_NOT_FOUND);
  }

  /**
   * Sends a delete of version {@code casId} without waiting or failing, for a clean-up that the
   * item's expiry would also do. Nothing is sent for id 0, which memcached reads as "any version".
   */
  public void deleteSoon(String key, long casId) {
    if (casId != 0) {
      try {
        client.delete(key, casId);
      } catch (RuntimeException e) {
        // Refused at once (shut down, queue full): the item expires with its lease.
      }
    }
  }

  /**
   * Deletes the item at {@code key}, whatever its version; one that is already gone is fine.
   *
   * @throws ErrorStatusException if memcached answered with an error
   */
  public void deleteKey(String key) throws Exception {
    OperationFuture<Boolean> f = client.delete(key);
    await(f);
    status(f, "delete", StatusCode.ERR_NOT_FOUND);
  }

  /**
   * Sends an {@code incr} by {@code by} of the counter at {@code key}, which memcached creates at
   * {@code initial} (not adding {@code by}) if it is missing; does not wait.
   */
  public PendingIncr incr(String key, long by, long initial) {
    return new PendingIncr(client.asyncIncr(key, by, initial, 0));
  }

  /**
   * Sends an {@code incr} by one of the counter at {@code key} that does not create it (expiry
   * {@code 0xffffffff} in the binary protocol); does not wait.
   */
  public PendingIncr incrIfPresent(String key) {
    return new PendingIncr(client.asyncIncr(key, 1L, 0L, -1));
  }

  /**
   * Whether both keys go to the same server. With one server they always do; otherwise ask the live
   * locator (not {@code MemcachedClient.getNodeLocator()}, which copies the whole ring).
   */
  public boolean sameServer(String key, String otherKey) {
    if (singleServer) {
      return true;
    }
    NodeLocator locator = client.getConnection().getLocator();
    return locator.getPrimary(key) == locator.getPrimary(otherKey);
  }

  /** Whether the client has exactly one server, so every key goes to it. */
  public boolean singleServer() {
    return singleServer;
  }

  /** How many servers the client has. */
  public int servers() {
    return servers;
  }

  /** The server {@code key} goes to, as the client's live locator places it. */
  public Object serverOf(String key) {
    return client.getConnection().getLocator().getPrimary(key);
  }

  /**
   * What kind of failure a call through spymemcached met: timeouts (also the unchecked {@link
   * OperationTimeoutException} of its synchronous calls), cancelled operations (no connection),
   * error answers of memcached, else what the JDK exceptions in the cause chain tell.
   */
  public static StoreFailure classify(Exception failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof OperationTimeoutException || t instanceof CheckedOperationTimeoutException) {
        return StoreFailure.TIMED_OUT;
      }
      if (t instanceof CancellationException) {
        return StoreFailure.UNAVAILABLE;
      }
      if (t instanceof OperationException) {
        return StoreFailure.REFUSED;
      }
      if (t instanceof ErrorStatusException) {
        switch (((ErrorStatusException) t).status().getStatusCode()) {
          case CANCELLED:
            return StoreFailure.UNAVAILABLE;
          case TIMEDOUT:
            return StoreFailure.TIMED_OUT;
          case INTERRUPTED:
            return StoreFailure.INTERRUPTED;
          default:
            return StoreFailure.REFUSED;
        }
      }
    }
    return StoreFailure.of(failure);
  }

  /** Waits for {@code f}'s answer; a failed operation throws its own cause. */
  private <T> @Nullable T await(OperationFuture<T> f) throws Exception {
    try {
      return f.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException | TimeoutException e) {
      f.cancel();
      throw e;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** The status code of answered {@code f}, if it is success or one of {@code expected}. */
  private static StatusCode status(OperationFuture<?> f, String operation, StatusCode... expected)
      throws ErrorStatusException {
    StatusCode code = f.getStatus().getStatusCode();
    if (code == StatusCode.SUCCESS || List.of(expected).contains(code)) {
      return code;
    }
    throw new ErrorStatusException(operation, f.getKey(), f.getStatus());
  }

  /** An {@code add} sent and not yet answered. */
  public final class PendingAdd {

    private final OperationFuture<Boolean> future;

    private PendingAdd(OperationFuture<Boolean> future) {
      this.future = future;
    }

    /** Waits for the answer: whether the add created the item (false: the key is taken). */
    public boolean created() throws Exception {
      await(future);
      return status(future, "add", StatusCode.ERR_EXISTS, StatusCode.ERR_NOT_STORED)
          == StatusCode.SUCCESS;
    }

    /** The CAS id of the item the answered add created, or 0 if the server did not report it. */
    public long casId() {
      try {
        Long cas = future.getCas();
        return cas == null ? 0 : cas;
      } catch (RuntimeException e) {
        return 0; // spymemcached throws when a write's answer carried no CAS id.
      }
    }
  }

  /** A {@code gets} sent and not yet answered. */
  public final class PendingGets {

    private final OperationFuture<CASValue<String>> future;

    private PendingGets(OperationFuture<CASValue<String>> future) {
      this.future = future;
    }

    /** Waits for the answer: as {@link ItemClient#gets}. */
    public @Nullable CASValue<String> item() throws Exception {
      return ItemClient.this.item(future, future.getKey());
    }
  }

  /** A {@code cas} sent and not yet answered. */
  public final class PendingCas {

    private final OperationFuture<?> future;

    private PendingCas(OperationFuture<?> future) {
      this.future = future;
    }

    /** Waits for the answer: as {@link ItemClient#cas}. */
    public StatusCode status() throws Exception {
      await(future);
      return ItemClient.status(future, "cas", StatusCode.ERR_EXISTS, StatusCode.ERR_NOT_FOUND);
    }
  }

  /** An {@code incr} sent and not yet answered. */
  public final class PendingIncr {

    private final OperationFuture<Long> future;

    private PendingIncr(OperationFuture<Long> future) {
      this.future = future;
    }

    /** Waits for the answer: the counter's new value. */
    public long value() throws Exception {
      Long value = await(future);
      status(future, "incr");
      if (value == null || value < 0) {
        throw new ErrorStatusException("incr", future.getKey(), future.getStatus());
      }
      return value;
    }

    /**
     * Waits for the answer: the counter's new value, or null if memcached answered {@code
     * NOT_STORED}: the counter was missing and another client created it between this incr's lookup
     * and its own creation (memcached does the two in separate steps), so nothing was drawn. Any
     * other error throws.
     */
    public @Nullable Long valueUnlessRaced() throws Exception {
      await(future);
      if (future.getStatus().getStatusCode() == StatusCode.ERR_NOT_STORED) {
        return null;
      }
      return value();
    }

    /**
     * Waits for the answer of an {@link ItemClient#incrIfPresent}: the counter's new value, or null
     * if there is no counter.
     */
    public @Nullable Long valueIfPresent() throws Exception {
      await(future);
      if (future.getStatus().getStatusCode() == StatusCode.ERR_NOT_FOUND) {
        return null;
      }
      return value();
    }
  }
}
