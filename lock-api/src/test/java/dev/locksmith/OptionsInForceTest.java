package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What {@link LockClient#options()} reports, and the mem: store's key prefix. */
class OptionsInForceTest {

  private final String space = "options-" + UUID.randomUUID();

  @Test
  @DisplayName("options() reports the owner prefix and key prefix in force, not nulls")
  void reportsDefaults() {
    try (LockClient client = LockClient.open("mem:" + space)) {
      assertThat(client.options().owner()).contains("pid" + ProcessHandle.current().pid());
      assertThat(client.options().keyPrefix()).contains("");
      assertThat(client.options().leaseTime()).isEqualTo(LockOptions.DEFAULT_LEASE_TIME);
      assertThat(client.options().toString())
          .contains("owner=pid" + ProcessHandle.current().pid())
          .contains("keyPrefix=''");
    }
  }

  @Test
  @DisplayName("options() reports what the URI and the builder set")
  void reportsWhatWasSet() {
    try (LockClient client =
        LockClient.open(
            "mem:" + space + "?keyPrefix=app-&leaseTime=10s",
            LockOptions.builder().owner("worker-1").build())) {
      assertThat(client.options().owner()).contains("worker-1");
      assertThat(client.options().keyPrefix()).contains("app-");
      assertThat(client.options().leaseTime()).isEqualTo(Duration.ofSeconds(10));
    }
  }

  @Test
  @DisplayName("mem: keeps lock names of clients with different key prefixes apart")
  void memHonoursKeyPrefix() {
    try (LockClient a = LockClient.open("mem:" + space, prefix("a-"));
        LockClient a2 = LockClient.open("mem:" + space, prefix("a-"));
        LockClient b = LockClient.open("mem:" + space, prefix("b-"));
        LockClient none = LockClient.open("mem:" + space)) {
      Lease held = a.lock("n").tryAcquire().orElseThrow();
      assertThat(b.lock("n").tryAcquire()).as("another prefix is another lock").isPresent();
      assertThat(none.lock("n").tryAcquire()).as("no prefix is another lock").isPresent();
      assertThat(none.lock("a-n").isLocked())
          .as("no prefix with a name that spells prefix and name together is another lock")
          .isFalse();
      assertThat(a2.lock("n").tryAcquire()).as("the same prefix is the same lock").isEmpty();
      held.release();
    }
  }

  @Test
  @DisplayName(
      "mem:?waiters=queue declares FAIR_QUEUE and serves waiters in turn; another value is refused"
          + " naming the option")
  void memWaitersOption() throws Exception {
    try (LockClient polling = LockClient.open("mem:" + space);
        LockClient queueing = LockClient.open("mem:" + space + "?waiters=queue")) {
      assertThat(polling.capabilities()).doesNotContain(Capability.FAIR_QUEUE);
      assertThat(queueing.capabilities()).contains(Capability.FAIR_QUEUE);
      Lease held = polling.lock("q").tryAcquire().orElseThrow();
      assertThat(queueing.lock("q").tryAcquire(Duration.ofMillis(100)))
          .as("a queued wait on a held lock gives up at its timeout")
          .isEmpty();
      held.release();
      assertThat(queueing.lock("q").tryAcquire(Duration.ofSeconds(5)))
          .as("a queued wait once the queue is empty and the lock free")
          .hasValueSatisfying(Lease::release);
    }
    assertThatThrownBy(() -> LockClient.open("mem:" + space + "?waiters=fifo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("waiters='fifo'")
        .hasMessageContaining("'poll'")
        .hasMessageContaining("'queue'");
  }

  private static LockOptions prefix(String p) {
    return LockOptions.builder().keyPrefix(p).build();
  }
}
