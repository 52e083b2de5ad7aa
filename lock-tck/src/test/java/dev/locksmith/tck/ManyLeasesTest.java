package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ManyLeasesTest {

  @Test
  @DisplayName("the reference store keeps 5,000 auto-renewed 1 s leases for two lease times")
  void memKeepsThem() throws Exception {
    ManyLeases.assertKept("mem:many-" + UUID.randomUUID(), 5_000, Duration.ofSeconds(1));
  }

  @Test
  @DisplayName("bad arguments are refused, naming the argument")
  void badArguments() {
    assertThatThrownBy(() -> ManyLeases.assertKept(null, 1, Duration.ofSeconds(1)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("uri must not be null");
    assertThatThrownBy(() -> ManyLeases.assertKept("mem:x", 1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("lease must not be null");
    assertThatThrownBy(() -> ManyLeases.assertKept("mem:x", 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("count must be positive, was 0");
    assertThatThrownBy(() -> ManyLeases.assertKept("mem:x", 1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lease must be positive, was PT0S");
  }
}
