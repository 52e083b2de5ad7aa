package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockTimeoutException;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What {@link Locked} and {@link LockTemplate} promise, checked with two Spring applications that
 * share one real store, as two instances of a service do: the {@code @SpringBootTest} one ( {@code
 * here}) and a second one started by the test ({@code there}). Subclasses pick the store.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockedContract {

  @Autowired Work here;
  @Autowired LockTemplate hereTemplate;
  @Autowired MeterRegistry meters;

  private ConfigurableApplicationContext second;
  Work there;
  LockTemplate thereTemplate;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<CountDownLatch> toOpen = new ArrayList<>();

  /** The properties of the second instance: the same store, {@code on-lost} left at LOG. */
  abstract Map<String, Object> secondInstance();

  /** Makes the store forget every lock, as a store that lost its data. */
  abstract void dropAllLocks() throws Exception;

  /** The {@code store} tag of the meters on this store: its kind, never its address. */
  abstract String storeTag();

  @BeforeAll
  void startSecondInstance() {
    second = new SpringApplicationBuilder(LockedApp.class).properties(secondInstance()).run();
    there = second.getBean(Work.class);
    thereTemplate = second.getBean(LockTemplate.class);
  }

  @AfterEach
  void letGo() {
    toOpen.forEach(CountDownLatch::countDown);
    toOpen.clear();
    here.runs().set(0);
    there.runs().set(0);
  }

  @AfterAll
  void stopSecondInstance() {
    threads.shutdownNow();
    second.close();
  }

  /** Starts {@code work.hold(name)} on a thread; returns the latch that ends it. */
  private CountDownLatch holdIn(Work work, String name) throws InterruptedException {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch leave = new CountDownLatch(1);
    toOpen.add(leave);
    threads.submit(
        () -> {
          work.hold(name, entered, leave);
          return null;
        });
    assertThat(entered.await(20, TimeUnit.SECONDS)).as("the holder got the lock").isTrue();
    return leave;
  }

  @Test
  @DisplayName("the meters are tagged with the kind of store (docs/spring.md), never its address")
  void metersTaggedWithTheKindOfStore() {
    assertThat(here.contextName()).isEqualTo("context");
    assertThat(meters.get("locksmith.acquire").timers())
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.getId().getTag("store")).isEqualTo(storeTag()));
    assertThat(meters.get("locksmith.held").gauge().getId().getTag("store")).isEqualTo(storeTag());
    assertThat(meters.get("locksmith.lost").counter().getId().getTag("store"))
        .isEqualTo(storeTag());
  }

  @Test
  @DisplayName(
      "SKIP: a call while the other instance holds the lock does not run and returns empty")
  void skip() throws Exception {
    CountDownLatch leave = holdIn(there, "s");
    assertThat(here.skipOptional("s")).isEmpty();
    assertThat(here.skipNull("s")).isNull();
    here.skipVoid("s");
    assertThat(here.runs()).as("nothing ran").hasValue(0);
    leave.countDown();
    await().atMost(Duration.ofSeconds(20)).until(() -> here.skipOptional("s").isPresent());
    assertThat(here.skipNull("s")).isEqualTo("ran");
  }

  @Test
  @DisplayName("FAIL: a call waits `waitFor`, then throws LockTimeoutException without running")
  void fail() throws Exception {
    holdIn(there, "f");
    long start = System.nanoTime();
    assertThatThrownBy(() -> here.fail("f"))
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining("hold:f");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(here.runs()).hasValue(0);
  }

  @Test
  @DisplayName("WAIT: a call blocks until the other instance releases, then runs")
  void waitUntilFree() throws Exception {
    CountDownLatch leave = holdIn(there, "w");
    Future<String> waiting = threads.submit(() -> here.waitForIt("w"));
    // It is still waiting while the lock is held (checked after a real attempt to get it).
    assertThat(here.skipOptional("w")).isEmpty();
    assertThat(waiting.isDone()).isFalse();
    leave.countDown();
    assertThat(waiting.get(20, TimeUnit.SECONDS)).isEqualTo("ran");
  }

  @Test
  @DisplayName("SpEL names read the arguments; the lease reaches the method with rising tokens")
  void namesAndLeases() {
    Lease first = here.orderLine(new Work.Order(42), 7, null);
    assertThat(first.name()).isEqualTo("order:42-line:7");
    assertThat(first.isValid()).as("released when the method returned").isFalse();
    Lease next = there.orderLine(new Work.Order(42), 7, null);
    assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(here.contextName()).isEqualTo("context");
    assertThat(LockContext.current()).as("nothing held outside the method").isEmpty();
    assertThatThrownBy(LockContext::currentLease)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no @Locked method");
  }

  @Test
  @DisplayName("holdAtLeast: the other instance is kept out until a second after the acquire")
  void holdAtLeast() {
    long before = System.nanoTime();
    here.shortJob("h");
    assertThat(there.tryShortJob("h")).as("still held after the job returned").isEmpty();
    long[] ranAt = {0};
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              Optional<Long> r = there.tryShortJob("h");
              r.ifPresent(t -> ranAt[0] = t);
              return r.isPresent();
            });
    assertThat(Duration.ofNanos(ranAt[0] - before)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  @DisplayName("a lost lease is logged with the lock and the method; INTERRUPT interrupts it")
  void lostLease(CapturedOutput output) throws Exception {
    // `here` runs with locksmith.on-lost=INTERRUPT, `there` with the default LOG.
    Future<String> interrupted = runUntilLost(here, "i");
    CountDownLatch leaveThere = new CountDownLatch(1);
    toOpen.add(leaveThere);
    Future<String> logged = runUntilLost(there, "l", leaveThere);
    dropAllLocks();

    assertThatThrownBy(() -> interrupted.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(LeaseLostException.class);
    assertThat(here.lostOutcome()).hasValue("interrupted");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> output.getAll().contains("Lock 'lost:l' was lost while Work.holdUntil"));
    assertThat(output.getAll())
        .contains("Lock 'lost:i' was lost while Work.holdUntilInterrupted(String,")
        .contains("; interrupting it");
    assertThat(logged.isDone()).as("LOG does not interrupt").isFalse();
    leaveThere.countDown();
    assertThatThrownBy(() -> logged.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(LeaseLostException.class);
    assertThat(there.lostOutcome()).hasValue("finished");
  }

  private Future<String> runUntilLost(Work work, String name) throws InterruptedException {
    CountDownLatch leave = new CountDownLatch(1);
    toOpen.add(leave);
    return runUntilLost(work, name, leave);
  }

  private Future<String> runUntilLost(Work work, String name, CountDownLatch leave)
      throws InterruptedException {
    CountDownLatch entered = new CountDownLatch(1);
    Future<String> f = threads.submit(() -> work.holdUntilInterrupted(name, entered, leave));
    assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
    return f;
  }

  @Test
  @DisplayName("LockTemplate: execute fails when busy, tryExecute is empty, both run when free")
  void template() throws Exception {
    CountDownLatch leave = holdIn(there, "t");
    assertThatThrownBy(() -> hereTemplate.execute("hold:t", Duration.ofMillis(200), () -> "ran"))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(hereTemplate.tryExecute("hold:t", Duration.ZERO, () -> "ran")).isEmpty();
    assertThat(hereTemplate.run("hold:t", Duration.ZERO, () -> here.runs().incrementAndGet()))
        .isFalse();
    leave.countDown();
    assertThat(
            hereTemplate.execute(
                "hold:t", Duration.ofSeconds(20), () -> LockContext.currentLease().name()))
        .isEqualTo("hold:t");
    assertThat(thereTemplate.tryExecute("hold:t", Duration.ofSeconds(20), () -> "ran"))
        .contains("ran");
    assertThatThrownBy(() -> hereTemplate.execute(" ", Duration.ZERO, () -> "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name");
  }
}
