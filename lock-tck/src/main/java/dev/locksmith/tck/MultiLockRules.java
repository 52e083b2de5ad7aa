package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.MultiLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** lockAll: one canonical order, all or nothing. */
public interface MultiLockRules extends KitTest {

  @Test
  default void rule_9_1_oppositeOrdersNeverDeadlock() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    List<String> names = List.of(kit.name("a"), kit.name("b"), kit.name("c"));
    List<String> reversed = List.of(names.get(2), names.get(1), names.get(0));
    LockHistory history = new LockHistory();
    ExecutorService pool = kit.pool(2);
    int rounds = Math.max(10, kit.contentionRounds());
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      LockClient c = t == 0 ? a : b;
      List<String> order = t == 0 ? names : reversed;
      futures.add(
          pool.submit(
              () -> {
                for (int r = 0; r < rounds; r++) {
                  MultiLease all = c.lockAll(order).acquire(Duration.ofSeconds(30));
                  List<LockHistory.Hold> holds = new ArrayList<>();
                  for (Lease l : all.leases()) {
                    holds.add(history.acquired(l.name(), Kit.tokenOf(c, l)));
                  }
                  Thread.sleep(1);
                  holds.forEach(LockHistory.Hold::released);
                  all.release();
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      Kit.within(f, Duration.ofSeconds(90), "a lockAll loop (deadlock?)");
    }
    HistoryChecker.assertConsistent(history);
  }

  @Test
  default void rule_9_2_allOrNothing() throws Exception {
    Kit kit = kit();
    LockClient a = kit.client();
    LockClient b = kit.client();
    LockClient c = kit.client();
    String n1 = kit.name("a");
    String n2 = kit.name("b");
    String n3 = kit.name("c");
    Lease middle = b.lock(n2).tryAcquire().orElseThrow();
    assertThat(a.lockAll(n1, n2, n3).tryAcquire()).isEmpty();
    assertThatThrownBy(() -> a.lockAll(n3, n2, n1).acquire(Duration.ofMillis(300)))
        .isInstanceOf(LockTimeoutException.class);
    for (String n : List.of(n1, n3)) {
      Optional<Lease> free = c.lock(n).tryAcquire();
      assertThat(free).as("lock %s after a failed lockAll", n).isPresent();
      free.get().release();
    }
    middle.release();
    MultiLease all = a.lockAll(n1, n2, n3).tryAcquire().orElseThrow();
    assertThat(all.leases()).hasSize(3);
    assertThat(all.isValid()).isTrue();
    for (String n : List.of(n1, n2, n3)) {
      assertThat(c.lock(n).tryAcquire()).as("lock %s while held by lockAll", n).isEmpty();
    }
    all.release();
    for (String n : List.of(n1, n2, n3)) {
      Optional<Lease> free = c.lock(n).tryAcquire();
      assertThat(free).as("lock %s after the multi-lease was released", n).isPresent();
      free.get().release();
    }
  }
}
