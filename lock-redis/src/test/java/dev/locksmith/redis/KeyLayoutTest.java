package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.redis.internal.KeyLayout;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The key layout: names cannot break out of the hash tag or collide. */
class KeyLayoutTest {

  final KeyLayout layout = new KeyLayout("locksmith:");

  static final List<String> NAMES =
      List.of("a", "{a}", "a}", "{", "}", "}{", "%7B", "%257B", "%", "a{b}c", "x:fence", "ü{}");

  @Test
  @DisplayName("every key of a name shares one hash slot, whatever braces the name holds")
  void oneSlotPerName() {
    for (String n : NAMES) {
      LockKey x = LockKey.exclusive(n);
      LockKey w = new LockKey(n, LockMode.WRITE);
      int slot = SlotHash.getSlot(layout.holdKey(x));
      assertThat(SlotHash.getSlot(layout.fenceKey(x))).as(n).isEqualTo(slot);
      for (String k : layout.readWriteKeys(w)) {
        assertThat(SlotHash.getSlot(k)).as(n + " " + k).isEqualTo(slot);
      }
    }
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
