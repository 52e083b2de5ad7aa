package dev.locksmith.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --key value} command-line arguments of the benchmark mains. */
final class Args {

  private Args() {}

  /**
   * Parses {@code --key value} pairs.
   *
   * @throws IllegalArgumentException for a stray argument or a key without a value
   */
  static Map<String, String> parse(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "expected --key value pairs, got '" + args[i] + "' at position " + i);
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }

  /** The value of {@code key}, which must be present. */
  static String require(Map<String, String> opts, String key) {
    String v = opts.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing --" + key);
    }
    return v;
  }
}
