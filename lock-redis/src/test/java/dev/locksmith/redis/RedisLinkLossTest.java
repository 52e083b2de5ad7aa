package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.redis.fixture.RedisFixture;
import dev.locksmith.tck.ClientLinks;
import dev.locksmith.tck.fixture.ProcessStore;
import dev.locksmith.tck.fixture.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A waiter whose own link to Redis dies while it sleeps on the release push (a partition, a dead
 * proxy, a firewall that drops idle connections) is told at its next attempt, at once, not at the
 * end of its backoff or its wait. Through the fixture's links (a TCP proxy per client), as the kit
 * does it.
 */
class RedisLinkLossTest {

  final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  <T extends AutoCloseable> T track(T t) {
    resources.add(t);
    return t;
  }

  static Stream<Arguments> fixtures() {
    return Stream.of(
        Arguments.of("script", (Supplier<RedisFixture>) RedisFixture::new),
        Arguments.of("watch", (Supplier<RedisFixture>) RedisFixture::watchStrategy));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  @DisplayName(
      "a waiter sleeping out a 30 s backoff on the release push fails with LockStoreException"
          + " within seconds when its link is cut")
  void waiterToldWhenItsLinkDies(String strategy, Supplier<RedisFixture> fixture) throws Exception {
    ProcessStore store = (ProcessStore) track(fixture.get().start());
    ClientLinks links = store.links().orElseThrow();
    LockClient holder = track(store.open(LockOptions.defaults()));
    Lease held = holder.lock("busy").withLeaseTime(Duration.ofSeconds(60)).acquire(Duration.ZERO);
    LockClient waiter =
        track(
            links.open(
                LockOptions.builder()
                    .backoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
                    .build()));
    CompletableFuture<Lease> acquired = new CompletableFuture<>();
    Thread waiting =
        new Thread(
            () -> {
              try {
                acquired.complete(waiter.lock("busy").acquire(Duration.ofSeconds(60)));
              } catch (Throwable t) {
                acquired.completeExceptionally(t);
              }
            },
            "waiter");
    waiting.start();
    // Ready once it listens for the release and sleeps out its backoff (the engine's pause).
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                RedisServer.cli(store.process(), "PUBSUB", "NUMSUB", "locksmith:{busy}:released")
                        .endsWith("1")
                    && Arrays.stream(waiting.getStackTrace())
                        .anyMatch(f -> f.getMethodName().equals("pause")));
    long cut = System.nanoTime();
    links.cut(waiter);
    assertThatThrownBy(() -> acquired.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(LockStoreException.class);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
    System.out.printf(
        "LINK CUT %s: the waiter failed %d ms after its link was cut%n", strategy, ms);
    // The store timeout and slack: far from the 30 s backoff and the 60 s wait.
    assertThat(ms).isLessThan(store.storeTimeout().plus(store.timingSlack()).toMillis() + 2000);
    assertThat(held.isValid()).isTrue();
    held.release();
  }
}
