package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.redis.internal.KeyLayout;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The key layout: names cannot break out of the hash tag or collide, counters are no lock key. */
class KeyLayoutTest {

  final KeyLayout layout = new KeyLayout("locksmith:");
  final KeyLayout clustered = KeyLayout.clustered("locksmith:");

  static final List<String> NAMES =
      List.of("a", "{a}", "a}", "{", "}", "}{", "%7B", "%257B", "%", "a{b}c", "x:fence", "ü{}");

  @Test
  @DisplayName(
      "on a cluster every key of a name, its slot's token counter included, shares one hash slot")
  void oneSlotPerName() {
    for (String n : NAMES) {
      LockKey x = LockKey.exclusive(n);
      LockKey w = new LockKey(n, LockMode.WRITE);
      int slot = slot(clustered.holdKey(x));
      for (String k : clustered.exclusiveKeys(x)) {
        assertThat(slot(k)).as(n + " " + k).isEqualTo(slot);
      }
      for (String k : clustered.readWriteKeys(w)) {
        assertThat(slot(k)).as(n + " " + k).isEqualTo(slot);
      }
    }
  }

  static int slot(String key) {
    return SlotHash.getSlot(key.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "a cluster has one token counter per hash slot, 16,384 in all, each in its own slot with a"
          + " tag of at most three characters")
  void oneCounterPerSlot() {
    Set<String> counters = new HashSet<>();
    for (int i = 0; i < 200_000; i++) {
      LockKey key = LockKey.exclusive("order:" + i);
      String counter = clustered.tokensKey(key);
      assertThat(slot(counter)).isEqualTo(slot(clustered.holdKey(key)));
      assertThat(counter).matches("locksmith:\\{[0-9a-zA-Z]{1,3}\\}:tokens");
      counters.add(counter);
    }
    assertThat(counters).hasSize(SlotHash.SLOT_COUNT);
  }

  @Test
  @DisplayName("a single node has one token counter per prefix, the same for every name and mode")
  void oneCounterPerPrefix() {
    Set<String> counters = new HashSet<>();
    for (String n : NAMES) {
      for (LockMode mode : LockMode.values()) {
        counters.add(layout.tokensKey(new LockKey(n, mode)));
      }
    }
    assertThat(counters).containsExactly("locksmith:{}:tokens");
  }

  @Test
  @DisplayName(
      "no token counter is the key of a lock name under any prefix, nor of a legacy counter")
  void countersAreNoLockKeys() {
    List<String> prefixes = List.of("", "locksmith:", "a", "ab", "x:", "p/", "p/lock/x/");
    List<String> names =
        new ArrayList<>(List.of("tokens", "}:tokens", ":tokens", "{}:tokens", "x}:tokens"));
    names.addAll(NAMES);
    for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot += 97) {
      names.add(clustered.tokensKey(LockKey.exclusive("s" + slot)));
    }
    Set<String> lockKeys = new HashSet<>();
    Set<String> counters = new HashSet<>();
    for (String prefix : prefixes) {
      KeyLayout single = new KeyLayout(prefix);
      KeyLayout perSlot = KeyLayout.clustered(prefix);
      for (String n : names) {
        for (LockMode mode : LockMode.values()) {
          LockKey key = new LockKey(n, mode);
          for (KeyLayout l : List.of(single, perSlot)) {
            lockKeys.addAll(List.of(l.readWriteKeys(key)).subList(0, 3));
            lockKeys.add(l.holdKey(key));
            lockKeys.add(l.legacyFenceKey(key));
            counters.add(l.tokensKey(key));
          }
        }
      }
    }
    assertThat(counters).doesNotContainAnyElementsOf(lockKeys);
  }

  @Test
  @DisplayName("distinct names never share a key, and the encoding has no braces")
  void noCollisions() {
    Set<String> keys = new HashSet<>();
    for (String n : NAMES) {
      assertThat(KeyLayout.encode(n)).doesNotContain("{", "}");
      assertThat(keys.add(layout.holdKey(LockKey.exclusive(n)))).as(n).isTrue();
    }
  }

  @Test
  @DisplayName("a prefix with a brace is refused")
  void braceInPrefix() {
    assertThatThrownBy(() -> new KeyLayout("app{x}:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix");
  }
}
