package dev.locksmith.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Whether a server may evict lock keys under memory pressure, read from its {@code
 * maxmemory-policy} when a store opens, and the one warning a user gets if it may.
 *
 * <p>A {@code volatile-*} policy evicts keys that have a time to live, which every hold has; an
 * {@code allkeys-*} policy evicts any key. Either can drop a held lock, and its holder only learns
 * of it at its next renewal, while another client may already hold the lock. (Fencing tokens stay
 * safe: they are drawn above the server's clock, see {@code LockScripts}.) {@code noeviction} never
 * evicts. A server that refuses {@code CONFIG GET} (an ACL user without it, a managed service that
 * renamed it) is not asked again, and nothing is said beyond a debug line.
 */
public final class EvictionPolicy {

  private EvictionPolicy() {}

  /**
   * Reads the policy of every node of {@code endpoint} and logs one warning on {@code log} naming
   * the nodes that may evict lock keys; never throws.
   */
  public static void warnIfEvicting(RedisEndpoint endpoint, Logger log) {
    Map<String, Map<String, String>> config;
    try {
      config = endpoint.config("maxmemory*");
    } catch (RuntimeException e) {
      log.debug(
          "Cannot read maxmemory-policy of {} ({}); not checking whether it evicts lock keys",
          endpoint.description(),
          e.toString());
      return;
    }
    List<String> evicting = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> node : config.entrySet()) {
      String policy = node.getValue().get("maxmemory-policy");
      if (policy != null && evicts(policy)) {
        String what = describe(policy, node.getValue().get("maxmemory"));
        evicting.add(config.size() == 1 ? what : what + " on " + node.getKey());
      }
    }
    if (!evicting.isEmpty()) {
      log.warn(
          "Redis at {} has {}, so it may evict lock keys: under memory pressure a held lock can be"
              + " evicted, and its holder is only told at its next renewal (onLost), while"
              + " another client may already hold the lock. Fencing tokens stay safe (they are"
              + " drawn above the server's clock). Give locks a Redis with maxmemory-policy"
              + " noeviction.",
          endpoint.description(),
          String.join(", ", evicting));
    }
  }

  /** Whether {@code policy} may evict keys that have a time to live (every hold has one). */
  static boolean evicts(String policy) {
    String p = policy.toLowerCase(Locale.ROOT);
    return p.startsWith("volatile-") || p.startsWith("allkeys-");
  }

  private static String describe(String policy, @Nullable String maxmemory) {
    String limit =
        maxmemory == null || maxmemory.equals("0")
            ? "no maxmemory yet, it applies once one is set"
            : "maxmemory " + maxmemory + " bytes";
    return "maxmemory-policy " + policy + " (" + limit + ")";
  }
}
