package dev.locksmith.etcd.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Objects;

/**
 * The value of a lock key: who holds it, how many nested holds, and the lease time in whole seconds
 * the hold was last given (so an extend with the same time can keep the lease alive instead of
 * replacing it). Stored as JSON, {@code {"owner":"…","holds":1,"ttl":2}}, readable with {@code
 * etcdctl get}.
 *
 * @param owner the holder's owner id
 * @param holds nested holds, at least 1
 * @param ttl the lease time of the hold's etcd lease, in seconds, at least 1
 */
public record HoldRecord(String owner, int holds, long ttl) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Checks the parts. */
  public HoldRecord {
    Objects.requireNonNull(owner, "owner");
    if (holds < 1 || ttl < 1) {
      throw new IllegalArgumentException("holds and ttl must be positive: " + holds + ", " + ttl);
    }
  }

  /** This record with one more hold, on a lease of {@code newTtl} seconds. */
  public HoldRecord nested(long newTtl) {
    return new HoldRecord(owner, holds + 1, newTtl);
  }

  /** This record with one hold less; only for {@code holds > 1}. */
  public HoldRecord released() {
    return new HoldRecord(owner, holds - 1, ttl);
  }

  /** This record on a lease of {@code newTtl} seconds. */
  public HoldRecord withTtl(long newTtl) {
    return new HoldRecord(owner, holds, newTtl);
  }

  /** The JSON bytes stored in etcd. */
  public byte[] encode() {
    ObjectNode o = JSON.createObjectNode();
    o.put("owner", owner);
    o.put("holds", holds);
    o.put("ttl", ttl);
    try {
      return JSON.writeValueAsBytes(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a hold record", e);
    }
  }

  /**
   * Reads a stored value.
   *
   * @throws IllegalArgumentException if it is not a hold record (another program wrote the key)
   */
  public static HoldRecord decode(byte[] value) {
    JsonNode o;
    try {
      o = JSON.readTree(value);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
    }
    if (o == null
        || !o.path("owner").isTextual()
        || !o.path("holds").canConvertToInt()
        || !o.path("ttl").canConvertToLong()) {
      throw new IllegalArgumentException("not a lock record (owner, holds, ttl)");
    }
    return new HoldRecord(o.get("owner").asText(), o.get("holds").asInt(), o.get("ttl").asLong());
  }
}
