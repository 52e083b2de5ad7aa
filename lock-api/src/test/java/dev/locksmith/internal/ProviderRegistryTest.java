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

  /** A second provider for mem:, to make a clash. */
  static final class SecondMemProvider implements LockProvider {
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
