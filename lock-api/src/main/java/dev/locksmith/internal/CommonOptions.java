package dev.locksmith.internal;

import dev.locksmith.LockOptions;
import java.util.Map;
import java.util.Set;

/** The URI query options every store understands: the URI form of {@link LockOptions}. */
final class CommonOptions {

  static final Set<String> NAMES =
      Set.of("leaseTime", "autoRenew", "owner", "keyPrefix", "backoffMin", "backoffMax");

  private CommonOptions() {}

  /** The common options found in {@code query}; other keys are left for the caller to judge. */
  static LockOptions parse(Map<String, String> query) {
    LockOptions.Builder b = LockOptions.builder();
    for (Map.Entry<String, String> e : query.entrySet()) {
      String v = e.getValue();
      switch (e.getKey()) {
        case "leaseTime":
          b.leaseTime(InputRules.parseDuration("leaseTime", v));
          break;
        case "autoRenew":
          b.autoRenew(InputRules.parseBoolean("autoRenew", v));
          break;
        case "owner":
          b.owner(v);
          break;
        case "keyPrefix":
          b.keyPrefix(v);
          break;
        case "backoffMin":
          b.backoffMin(InputRules.parseDuration("backoffMin", v));
          break;
        case "backoffMax":
          b.backoffMax(InputRules.parseDuration("backoffMax", v));
          break;
        default:
          break;
      }
    }
    return b.build();
  }
}
