package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.UnsupportedLockUriException;
import dev.locksmith.spi.LockProvider;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The module names lock-api gives a user who opened a scheme without its store module agree with
 * the store modules there are: the CLI has them all on its class path.
 */
class StoreModulesTest {

  @Test
  @DisplayName(
      "every scheme of every store provider is named with the module that serves it, and no"
          + " other scheme is")
  void everySchemeNamesItsModule() {
    Map<String, String> found = new TreeMap<>();
    for (LockProvider p : ServiceLoader.load(LockProvider.class)) {
      String store = p.getClass().getPackageName().substring("dev.locksmith.".length());
      String module = store.equals("mem") ? "lock-api" : "lock-" + store;
      for (String scheme : p.schemes()) {
        found.put(scheme, module);
      }
    }
    assertThat(found).containsKeys("redis", "memcached", "zookeeper", "etcd", "jdbc", "mem");
    for (Map.Entry<String, String> e : found.entrySet()) {
      assertThat(UnsupportedLockUriException.moduleFor(e.getKey()))
          .as("the module named for scheme %s", e.getKey())
          .contains(e.getValue());
    }
    assertThat(UnsupportedLockUriException.moduleFor("nosuch")).isEmpty();
  }
}
