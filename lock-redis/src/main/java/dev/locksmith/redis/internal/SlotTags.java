package dev.locksmith.redis.internal;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;

/**
 * A short hash tag for every Redis Cluster hash slot: the shortest string of letters and digits
 * whose CRC16 (the slot function) lands on that slot, so that a key {@code P{tag}:…} lives in the
 * slot of the tag. A script may only touch keys of one slot; with these tags a lock's keys and the
 * token counter of its slot meet in one script.
 *
 * <p>All 16,384 slots are reached with one to three characters; the table is built once, on first
 * use, from about a quarter of a million CRC16s of up to three bytes (a few milliseconds).
 */
final class SlotTags {

  private static final String ALPHABET =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

  private SlotTags() {}

  /** Built on first use: only a cluster store needs it. */
  private static final class Table {
    static final String[] TAGS = build();
  }

  /** The tag of {@code slot} (0 to 16,383). */
  static String of(int slot) {
    return Table.TAGS[slot];
  }

  /** The hash slot of {@code key} as the server computes it (UTF-8 bytes, hash tag honoured). */
  static int slotOf(String key) {
    return SlotHash.getSlot(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String[] build() {
    String[] tags = new String[SlotHash.SLOT_COUNT];
    int missing = tags.length;
    int n = ALPHABET.length();
    for (int length = 1; length <= 3 && missing > 0; length++) {
      int combinations = (int) Math.pow(n, length);
      char[] chars = new char[length];
      for (int i = 0; i < combinations && missing > 0; i++) {
        int rest = i;
        for (int p = length - 1; p >= 0; p--) {
          chars[p] = ALPHABET.charAt(rest % n);
          rest /= n;
        }
        String tag = new String(chars);
        int slot = SlotHash.getSlot(tag.getBytes(StandardCharsets.US_ASCII));
        if (tags[slot] == null) {
          tags[slot] = tag;
          missing--;
        }
      }
    }
    if (missing > 0) {
      throw new IllegalStateException(missing + " hash slots have no tag of up to 3 characters");
    }
    return tags;
  }
}
