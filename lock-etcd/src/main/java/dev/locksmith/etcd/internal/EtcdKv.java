package dev.locksmith.etcd.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.locksmith.LockStoreException;
import dev.locksmith.etcd.internal.EtcdGateway.Retry;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The few etcd v3 calls a lock needs, in etcd's JSON (64-bit numbers are strings there, keys and
 * values base64): leases, one-key ranges and the transactions the lock store builds with {@link
 * Txn}.
 */
public final class EtcdKv {

  /** The most operations etcd takes in one transaction unless configured otherwise. */
  public static final int MAX_TXN_OPS = 128;

  // etcd's answer to a transaction of more operations than its --max-txn-ops.
  private static final String TOO_MANY_OPS = "too many operations in txn request";

  private final EtcdGateway gateway;

  /** Calls through {@code gateway}. */
  public EtcdKv(EtcdGateway gateway) {
    this.gateway = gateway;
  }

  /** The gateway these calls go through. */
  public EtcdGateway gateway() {
    return gateway;
  }

  /**
   * Grants a lease of {@code ttl} seconds.
   *
   * @return the lease id and the TTL etcd granted (etcd raises a TTL below its minimum)
   */
  public long[] grant(long ttl) {
    ObjectNode body = EtcdGateway.object();
    body.put("TTL", ttl);
    JsonNode r = gateway.call("/v3/lease/grant", body, Retry.SAFE);
    long id = r.path("ID").asLong(0);
    if (id == 0) {
      throw new LockStoreException("etcd granted no lease: " + r);
    }
    return new long[] {id, r.path("TTL").asLong(ttl)};
  }

  /**
   * Revokes {@code lease} (deleting its keys) without waiting; it ends at its TTL if this fails.
   */
  public void revokeInBackground(long lease) {
    if (lease != 0) {
      gateway.callInBackground("/v3/lease/revoke", id(lease));
    }
  }

  /** Revokes {@code lease} and waits; a lease that is already gone is fine. */
  public void revoke(long lease) {
    try {
      gateway.call("/v3/lease/revoke", id(lease), Retry.SAFE);
    } catch (EtcdException e) {
      if (e.grpcCode() != EtcdException.NOT_FOUND) {
        throw e;
      }
    }
  }

  /**
   * Restarts {@code lease} at its granted TTL (one keep-alive; no Raft write).
   *
   * @return false if the lease is gone (expired or revoked)
   */
  public boolean keepAlive(long lease) {
    JsonNode r = gateway.call("/v3/lease/keepalive", id(lease), Retry.SAFE);
    return r.path("result").path("TTL").asLong(0) > 0;
  }

  /** The whole seconds left on {@code lease} (rounded down by etcd), or -1 if it is gone. */
  public long timeToLive(long lease) {
    JsonNode r = gateway.call("/v3/lease/timetolive", id(lease), Retry.SAFE);
    return r.path("TTL").asLong(-1);
  }

  /** The key, or null if it does not exist. */
  public @Nullable KeyValue get(byte[] key) {
    ObjectNode body = EtcdGateway.object();
    body.put("key", EtcdGateway.base64(key));
    return first(gateway.call("/v3/kv/range", body, Retry.SAFE));
  }

  /**
   * The keys, read together: one read-only transaction of range requests for every {@value
   * #MAX_TXN_OPS} keys, instead of a request per key. Null where a key does not exist; in the order
   * of {@code keys}.
   */
  public List<@Nullable KeyValue> getAll(List<byte[]> keys) {
    List<@Nullable KeyValue> found = new ArrayList<>(keys.size());
    for (int from = 0; from < keys.size(); from += MAX_TXN_OPS) {
      List<byte[]> part = keys.subList(from, Math.min(keys.size(), from + MAX_TXN_OPS));
      ArrayNode reads = EtcdGateway.listOf();
      for (byte[] key : part) {
        ObjectNode range = EtcdGateway.object();
        range.put("key", EtcdGateway.base64(key));
        ObjectNode op = EtcdGateway.object();
        op.set("request_range", range);
        reads.add(op);
      }
      ObjectNode body = EtcdGateway.object();
      body.set("success", reads); // no compare: the transaction always succeeds
      JsonNode responses;
      try {
        responses = gateway.call("/v3/kv/txn", body, Retry.SAFE).path("responses");
      } catch (EtcdException e) {
        if (!e.etcdMessage().contains(TOO_MANY_OPS)) {
          throw e;
        }
        // A server started with a lower --max-txn-ops: read these keys one by one.
        for (byte[] key : part) {
          found.add(get(key));
        }
        continue;
      }
      if (responses.size() != part.size()) {
        throw new LockStoreException(
            "etcd answered "
                + responses.size()
                + " of the "
                + part.size()
                + " reads of one transaction on "
                + gateway.preferredMember());
      }
      for (JsonNode response : responses) {
        found.add(first(response.path("response_range")));
      }
    }
    return found;
  }

  /** Deletes the key unconditionally (for operators and tests). */
  public void delete(byte[] key) {
    ObjectNode body = EtcdGateway.object();
    body.put("key", EtcdGateway.base64(key));
    gateway.call("/v3/kv/deleterange", body, Retry.ONCE);
  }

  /** Sends a transaction once (a write whose answer is lost is not sent again). */
  public TxnResult commit(Txn txn) {
    return new TxnResult(gateway.call("/v3/kv/txn", txn.body, Retry.ONCE));
  }

  /** The first key of a range answer, or null. */
  static @Nullable KeyValue first(JsonNode rangeResponse) {
    JsonNode kvs = rangeResponse.path("kvs");
    if (!kvs.isArray() || kvs.isEmpty()) {
      return null;
    }
    JsonNode kv = kvs.get(0);
    return new KeyValue(
        kv.path("create_revision").asLong(0),
        kv.path("mod_revision").asLong(0),
        kv.path("lease").asLong(0),
        Base64.getDecoder().decode(kv.path("value").asText("")));
  }

  private static ObjectNode id(long lease) {
    ObjectNode body = EtcdGateway.object();
    body.put("ID", lease);
    return body;
  }

  /**
   * A one-key transaction: one compare, one operation on success, optionally a range on failure.
   */
  public static final class Txn {
    final ObjectNode body = EtcdGateway.object();
    private final String key;

    private Txn(byte[] key, ObjectNode compare) {
      this.key = EtcdGateway.base64(key);
      compare.put("key", this.key);
      body.set("compare", EtcdGateway.listOf(compare));
    }

    /** If the key does not exist ({@code create_revision == 0}). */
    public static Txn ifAbsent(byte[] key) {
      ObjectNode c = EtcdGateway.object();
      c.put("target", "CREATE").put("result", "EQUAL").put("create_revision", 0);
      return new Txn(key, c);
    }

    /** If the key was last changed at {@code modRevision} (nobody wrote it since it was read). */
    public static Txn ifUnchanged(byte[] key, long modRevision) {
      ObjectNode c = EtcdGateway.object();
      c.put("target", "MOD").put("result", "EQUAL").put("mod_revision", modRevision);
      return new Txn(key, c);
    }

    /** Then put {@code value} on {@code lease}. */
    public Txn thenPut(byte[] value, long lease) {
      ObjectNode put = EtcdGateway.object();
      put.put("key", key).put("value", EtcdGateway.base64(value)).put("lease", lease);
      return then("request_put", put);
    }

    /** Then put {@code value}, keeping the key's lease. */
    public Txn thenPutKeepingLease(byte[] value) {
      ObjectNode put = EtcdGateway.object();
      put.put("key", key).put("value", EtcdGateway.base64(value)).put("ignore_lease", true);
      return then("request_put", put);
    }

    /** Then delete the key. */
    public Txn thenDelete() {
      ObjectNode del = EtcdGateway.object();
      del.put("key", key);
      return then("request_delete_range", del);
    }

    /** Else read the key (in the same revision as the failed compare). */
    public Txn elseGet() {
      ObjectNode range = EtcdGateway.object();
      range.put("key", key);
      ObjectNode op = EtcdGateway.object();
      op.set("request_range", range);
      body.set("failure", EtcdGateway.listOf(op));
      return this;
    }

    private Txn then(String kind, ObjectNode request) {
      ObjectNode op = EtcdGateway.object();
      op.set(kind, request);
      body.set("success", EtcdGateway.listOf(op));
      return this;
    }
  }

  /** A transaction's answer. */
  public static final class TxnResult {
    private final JsonNode answer;

    TxnResult(JsonNode answer) {
      this.answer = answer;
    }

    /** Whether the compare held and the success operation ran. */
    public boolean succeeded() {
      return answer.path("succeeded").asBoolean(false);
    }

    /** The revision the transaction ran at (the create revision of a key it created). */
    public long revision() {
      return answer.path("header").path("revision").asLong(0);
    }

    /** The key that a failed transaction's {@link Txn#elseGet} read, or null if it is absent. */
    public @Nullable KeyValue current() {
      JsonNode responses = answer.path("responses");
      return responses.isArray() && !responses.isEmpty()
          ? first(responses.get(0).path("response_range"))
          : null;
    }
  }
}
