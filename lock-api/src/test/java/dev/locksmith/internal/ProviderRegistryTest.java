package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.UnsupportedLockUriException;
import dev.locksmith.mem.MemLockProvider;
import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ProviderRegistryTest {

  @Test
  @DisplayName(
      "open finds the mem: provider through ServiceLoader, past a provider that fails to load")
  void findsProviderPastBrokenOne() {
    try (LockClient client = LockClient.open("mem:registry-test")) {
      assertThat(client.capabilities()).contains(Capability.FENCING, Capability.READ_WRITE);
      assertThat(client.lock("a").tryAcquire()).isPresent();
    }
  }

  @Test
  @DisplayName("an unknown scheme is refused with the list of schemes on the class path")
  void unknownSchemeListsKnownOnes() {
    assertThatThrownBy(() -> LockClient.open("nosuch://host"))
        .isInstanceOf(UnsupportedLockUriException.class)
        .hasMessageContaining("'nosuch'")
        .hasMessageContaining("mem")
        .satisfies(
            e -> assertThat(((UnsupportedLockUriException) e).knownSchemes()).contains("mem"));
  }

  @Test
  @DisplayName(
      "a scheme of one of Locksmith's stores whose module is missing names the module to add;"
          + " a foreign scheme lists every store module")
  void missingStoreModuleIsNamed() {
    assertThatThrownBy(() -> LockClient.open("etcd://127.0.0.1:2379"))
        .isInstanceOf(UnsupportedLockUriException.class)
        .hasMessageContaining("Add dev.locksmith:lock-etcd, which serves etcd:");
    assertThatThrownBy(() -> LockClient.open("jdbc:postgresql://db/app"))
        .hasMessageContaining(
            "Add dev.locksmith:lock-jdbc, which serves jdbc:, and the database's");
    assertThatThrownBy(() -> LockClient.open("nosuch://host"))
        .hasMessageContaining(
            "lock-redis, lock-memcached, lock-zookeeper, lock-etcd and lock-jdbc");
  }

  @Test
  @DisplayName("two providers for one scheme is an error that names both")
  void duplicateSchemeNamesBoth() {
    ProviderRegistry registry =
        new ProviderRegistry(() -> List.of(new MemLockProvider(), new SecondMemProvider()));
    assertThatThrownBy(() -> registry.open("mem:x", LockOptions.defaults()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(MemLockProvider.class.getName())
        .hasMessageContaining(SecondMemProvider.class.getName());
  }

  @Test
  @DisplayName("an unknown URI option is refused, naming it and the known ones")
  void unknownOptionRefused() {
    assertThatThrownBy(() -> LockClient.open("mem:x?leaseTime=5s&colour=blue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'colour'")
        .hasMessageContaining("leaseTime");
  }

  @Test
  @DisplayName("common URI options reach the client's options")
  void uriOptionsApplied() {
    try (LockClient client =
        LockClient.open("mem:x?leaseTime=5s&autoRenew=false&owner=worker-1&backoffMax=20ms")) {
      assertThat(client.options().leaseTime()).isEqualTo(Duration.ofSeconds(5));
      assertThat(client.options().autoRenew()).isFalse();
      assertThat(client.options().owner()).contains("worker-1");
      assertThat(client.options().backoffMax()).isEqualTo(Duration.ofMillis(20));
    }
  }

  @Test
  @DisplayName("an option set in code and in the URI to different values is refused")
  void conflictingOptionRefused() {
    LockOptions options = LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build();
    assertThatThrownBy(() -> LockClient.open("mem:x?leaseTime=5s", options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'leaseTime' is set twice");
  }

  @Test
  @DisplayName("malformed option values are refused with the option's name")
  void malformedOptionValues() {
    assertThatThrownBy(() -> LockClient.open("mem:x?leaseTime=5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime '5' is not a duration");
    assertThatThrownBy(() -> LockClient.open("mem:x?autoRenew=yes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("autoRenew must be true or false");
    assertThatThrownBy(() -> LockClient.open("mem:x?leaseTime=0s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime must be positive");
    assertThatThrownBy(() -> LockClient.open("mem:bad/name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mem: space name");
  }

  @Test
  @DisplayName("null and scheme-less URIs are refused")
  void badUris() {
    assertThatThrownBy(() -> LockClient.open((String) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> LockClient.open("localhost:6379"))
        .isInstanceOf(UnsupportedLockUriException.class);
    assertThatThrownBy(() -> LockClient.open("no-scheme-here"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no scheme");
    assertThatThrownBy(() -> LockClient.open(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no scheme");
  }

  @Test
  @DisplayName(
      "a provider whose schemes() throws is skipped, the others are found; schemes match in any"
          + " case")
  void failingSchemesSkippedAndCaseIgnored() {
    LockProvider failing =
        new SecondMemProvider() {
          @Override
          public Set<String> schemes() {
            throw new IllegalStateException("boom");
          }
        };
    LockProvider upper =
        new SecondMemProvider() {
          @Override
          public Set<String> schemes() {
            return Set.of("MEM");
          }
        };
    ProviderRegistry registry = new ProviderRegistry(() -> List.of(failing, upper));
    assertThat(registry.byScheme()).containsOnlyKeys("mem");
    assertThat(registry.byScheme().get("mem")).containsExactly(upper);
    try (LockClient client = registry.open("MEM:case", LockOptions.defaults())) {
      assertThat(client.lock("a").tryAcquire()).isPresent();
    }
  }

  @Test
  @DisplayName(
      "unknown options are all named, in the plural; a provider that passes unknown options on"
          + " gets them")
  void unknownOptionsPluralAndPassedOn() {
    assertThatThrownBy(() -> LockClient.open("mem:x?colour=blue&size=9"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown options 'colour', 'size' in lock URI")
        .hasMessageContaining("known options for scheme 'mem': ");
    assertThatThrownBy(() -> LockClient.open("mem:x?colour=blue"))
        .hasMessageStartingWith("unknown option 'colour' in lock URI");

    java.util.concurrent.atomic.AtomicReference<LockUri> seen =
        new java.util.concurrent.atomic.AtomicReference<>();
    LockProvider lenient =
        new SecondMemProvider() {
          @Override
          public boolean passesUnknownOptions() {
            return true;
          }

          @Override
          public LockStore open(LockUri uri, LockOptions options) {
            seen.set(uri);
            return super.open(uri, options);
          }
        };
    try (LockClient client =
        new ProviderRegistry(() -> List.of(lenient))
            .open("mem:x?colour=blue&leaseTime=5s", LockOptions.defaults())) {
      assertThat(seen.get().options()).containsOnlyKeys("colour");
      assertThat(client.options().leaseTime()).isEqualTo(Duration.ofSeconds(5));
    }
  }

  @Test
  @DisplayName("a store the engine refuses (lease below the store's minimum) is closed, not leaked")
  void refusedStoreIsClosed() {
    TimedStore coarse =
        new TimedStore(
            new dev.locksmith.spi.StoreTiming(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    LockProvider provider =
        new SecondMemProvider() {
          @Override
          public LockStore open(LockUri uri, LockOptions options) {
            return coarse;
          }
        };
    ProviderRegistry registry = new ProviderRegistry(() -> List.of(provider));
    assertThatThrownBy(() -> registry.open("mem:x?leaseTime=1s", LockOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(coarse.closed).isTrue();
  }

  @Test
  @DisplayName(
      "the shared registry also finds providers that only the thread's context class loader"
          + " declares, once each, and skips a declared class that does not exist")
  void contextClassLoaderProviders(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path services = dir.resolve("META-INF/services");
    java.nio.file.Files.createDirectories(services);
    java.nio.file.Files.writeString(
        services.resolve(LockProvider.class.getName()),
        "dev.locksmith.internal.NoSuchProvider\n" + ContextOnlyProvider.class.getName() + "\n");
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    assertThat(ProviderRegistry.shared().byScheme()).doesNotContainKey("context-only");
    try (java.net.URLClassLoader plugin =
        new java.net.URLClassLoader(
            new java.net.URL[] {dir.toUri().toURL()}, ProviderRegistry.class.getClassLoader())) {
      thread.setContextClassLoader(plugin);
      assertThat(ProviderRegistry.shared().byScheme())
          .containsKey("context-only")
          .satisfies(m -> assertThat(m.get("mem")).as("mem providers").hasSize(1));
      try (LockClient client = LockClient.open("context-only:plugin")) {
        assertThat(client.lock("a").tryAcquire()).isPresent();
      }
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  /** A provider declared only by the test's own class loader (a plugin's). */
  public static final class ContextOnlyProvider extends SecondMemProvider {
    @Override
    public Set<String> schemes() {
      return Set.of("context-only");
    }
  }

  /** A second provider for mem:, to make a clash. */
  static class SecondMemProvider implements LockProvider {
    @Override
    public Set<String> schemes() {
      return Set.of("mem");
    }

    @Override
    public LockStore open(LockUri uri, LockOptions options) {
      return new MemLockStore(MemLockSpace.named("second"));
    }
  }
}
