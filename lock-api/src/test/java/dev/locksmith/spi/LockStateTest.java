package dev.locksmith.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The named ways a store says who holds a lock. */
class LockStateTest {

  @Test
  @DisplayName("heldBy: locked, by that owner, with its holds and remaining time")
  void heldBy() {
    LockState s = LockState.heldBy("alice", 2, Duration.ofSeconds(3));
    assertThat(s).isEqualTo(new LockState(true, "alice", 2, Duration.ofSeconds(3)));
    assertThat(LockState.heldBy("bob", 1, null).remaining()).isNull();
  }

  @Test
  @DisplayName("heldByReaders: locked, no owner, the number of readers, no remaining time")
  void heldByReaders() {
    assertThat(LockState.heldByReaders(3)).isEqualTo(new LockState(true, null, 3, null));
  }

  @Test
  @DisplayName("a holder without a name or holds, and readers that are not there, are refused")
  void refusesWhatIsNotAHold() {
    assertThatThrownBy(() -> LockState.heldBy(null, 1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("owner must not be null");
    assertThatThrownBy(() -> LockState.heldBy("alice", 0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("holds must be at least 1, was 0");
    assertThatThrownBy(() -> LockState.heldByReaders(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("readers must be at least 1, was 0")
        .hasMessageContaining("FREE");
  }
}
