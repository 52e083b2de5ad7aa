package dev.locksmith.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.memcached.internal.StoreKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Keys of different (prefix, name) pairs never meet, against a real memcached. */
class MemcachedKeyLayoutTest {

  private static MemcachedServer server;

  @BeforeAll
  static void startServer() {
    server = MemcachedServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private LockClient open(String prefix) {
    return LockClient.open(server.uri(), LockOptions.builder().keyPrefix(prefix).build());
  }

  @Test
  @DisplayName(
      "pairs that concatenate to one key never share a lock: the prefix with a separator in it is"
          + " refused at open, naming it, or the two hold at once")
  void collidingPairsNeverShareALock() {
    String run = Long.toString(System.nanoTime());
    String[][] pairs = {
      {"p" + run + ":", "x:lock:y", "p" + run + ":lock:x:", "y"},
      {"p" + run + ":", "x:fence:y", "p" + run + ":fence:x:", "y"},
      {"a" + run, "bc", "a" + run + "b", "c"},
      {"", "x" + run + ":foo", "x" + run + ":", "foo"},
      {"q" + run + ":", "lock:y", "q" + run + ":lock:", "y"},
    };
    for (String[] pair : pairs) {
      try (LockClient first = open(pair[0])) {
        Optional<Lease> held = first.lock(pair[1]).tryAcquire();
        assertThat(held).as("first of %s", String.join(" ", pair)).isPresent();
        LockClient second;
        try {
          second = open(pair[2]);
        } catch (IllegalArgumentException refused) {
          assertThat(refused).hasMessageContaining("keyPrefix '" + pair[2] + "'");
          continue;
        }
        try (second) {
          Optional<Lease> other = second.lock(pair[3]).tryAcquire();
          assertThat(other).as("second of %s", String.join(" ", pair)).isPresent();
          other.get().release();
        } finally {
          held.get().release();
        }
      }
    }
  }

  @Test
  @DisplayName(
      "a prefix containing 'lock:' or 'fence:' is refused with IllegalArgumentException naming it"
          + " and the separator; other prefixes, the default among them, are taken")
  void separatorsInPrefixRefused() {
    for (String prefix : List.of("p:lock:x:", "lock:", "app-lock:", "a:fence:b", "fence:")) {
      assertThatThrownBy(() -> new StoreKeys(prefix))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix '" + prefix + "'")
          .hasMessageContaining(prefix.contains("lock:") ? "'lock:'" : "'fence:'");
      assertThatThrownBy(() -> open(prefix).close())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix '" + prefix + "'");
    }
    for (String prefix : List.of("", "locksmith:", "lock", "locks:", "fence", "fence#", "a#b:")) {
      assertThat(new StoreKeys(prefix).prefix()).isEqualTo(prefix);
    }
  }

  @Test
  @DisplayName(
      "every key laid out from allowed prefixes and names built of the layout's separators is"
          + " distinct: lock items, per-name counters of earlier versions and shared counters")
  void keysNeverCollide() {
    List<String> parts = List.of("", "p", ":", "lock:", "fence:", "fence#", "#", "0", "lock", "x");
    List<String> names = new ArrayList<>();
    for (String a : parts) {
      for (String b : parts) {
        names.add(a + b);
      }
    }
    List<String> prefixes = new ArrayList<>();
    for (String ab : names) {
      for (String c : parts) {
        prefixes.add(ab + c);
      }
    }
    Map<String, String> owners = new HashMap<>();
    int allowed = 0;
    for (String prefix : prefixes.stream().distinct().toList()) {
      StoreKeys keys;
      try {
        keys = new StoreKeys(prefix);
      } catch (IllegalArgumentException refused) {
        assertThat(prefix).containsAnyOf("lock:", "fence:");
        continue;
      }
      allowed++;
      for (int i = 0; i < 12; i++) {
        claim(owners, keys.counter(i), "counter " + i + " of '" + prefix + "'");
      }
      for (String name : names.stream().distinct().toList()) {
        claim(owners, keys.lock(name), "lock '" + name + "' of '" + prefix + "'");
        claim(owners, keys.legacyFence(name), "old counter '" + name + "' of '" + prefix + "'");
      }
    }
    assertThat(allowed).isGreaterThan(100);
  }

  private static void claim(Map<String, String> owners, String key, String what) {
    String before = owners.putIfAbsent(key, what);
    assertThat(before).as("key '%s' of %s", key, what).isNull();
  }
}
