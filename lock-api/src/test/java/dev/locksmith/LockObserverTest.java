package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.LockObserver.AcquireOutcome;
import dev.locksmith.LockObserver.Operation;
import dev.locksmith.LockObserver.RenewalOutcome;
import dev.locksmith.LockObserver.Span;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The engine tells a client's {@link LockObserver} what it does, on the mem: store. */
class LockObserverTest {

  /** Everything an observer heard, as text, in order. */
  static final class Recording implements LockObserver {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<Duration> acquireTimes = new CopyOnWriteArrayList<>();
    final AtomicInteger held = new AtomicInteger();

    @Override
    public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
      events.add("acquire " + lockName + " " + outcome + " on " + store);
      acquireTimes.add(took);
      if (outcome == AcquireOutcome.ACQUIRED) {
        held.incrementAndGet();
      }
    }

    @Override
    public void renewalEnded(String store, String lockName, RenewalOutcome outcome, Duration took) {
      events.add("renewal " + lockName + " " + outcome);
    }

    @Override
    public void leaseLost(String store, Lease lease, LeaseLostException reason) {
      events.add("lost " + lease.name());
    }

    @Override
    public void leaseEnded(String store, Lease lease) {
      events.add("ended " + lease.name());
      held.decrementAndGet();
    }
  }

  private final MemClients clients = new MemClients();

  @AfterEach
  void closeClients() {
    clients.close();
  }

  private LockClient client(LockOptions.Builder options) {
    return clients.open(options.build());
  }

  @Test
  @DisplayName("every acquire call is reported once with its outcome, store and duration")
  void acquireOutcomes() throws Exception {
    Recording seen = new Recording();
    LockClient a = client(LockOptions.builder().observer(seen));
    LockClient b = client(LockOptions.builder());
    String store = clients.storeName();

    Lease lease = a.lock("l").tryAcquire().orElseThrow();
    Lease other = b.lock("l2").tryAcquire().orElseThrow();
    assertThat(a.lock("l2").tryAcquire()).isEmpty();
    assertThatThrownBy(() -> a.lock("l2").acquire(Duration.ofMillis(100)))
        .isInstanceOf(LockTimeoutException.class);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> a.lock("l2").acquire(Duration.ofSeconds(5)))
        .isInstanceOf(InterruptedException.class);
    clients.space().startOutage();
    assertThatThrownBy(() -> a.lock("l3").tryAcquire()).isInstanceOf(LockStoreException.class);
    clients.space().endOutage();

    assertThat(seen.events)
        .containsExactly(
            "acquire l ACQUIRED on " + store,
            "acquire l2 BUSY on " + store,
            "acquire l2 TIMEOUT on " + store,
            "acquire l2 INTERRUPTED on " + store,
            "acquire l3 ERROR on " + store);
    assertThat(seen.acquireTimes.get(2)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    lease.release();
    other.release();
    assertThat(seen.events).endsWith("ended l");
    assertThat(seen.held).hasValue(0);
  }

  @Test
  @DisplayName("the thread view and multi-lock report through the same hook")
  void viewsAreObserved() {
    Recording seen = new Recording();
    LockClient a = client(LockOptions.builder().observer(seen));
    ThreadOwnedLock view = a.lock("v").asLock();
    view.lock();
    view.unlock();
    try (MultiLease all = a.lockAll("m1", "m2").tryAcquire().orElseThrow()) {
      assertThat(seen.held).hasValue(2);
    }
    assertThat(seen.events)
        .filteredOn(e -> e.startsWith("acquire"))
        .containsExactly(
            "acquire v ACQUIRED on " + clients.storeName(),
            "acquire m1 ACQUIRED on " + clients.storeName(),
            "acquire m2 ACQUIRED on " + clients.storeName());
    assertThat(seen.held).hasValue(0);
  }

  @Test
  @DisplayName(
      "renewals are reported; a renewal that finds the hold gone reports LOST and the loss")
  void renewalsAndLoss() {
    Recording seen = new Recording();
    LockClient a = client(LockOptions.builder().observer(seen).leaseTime(Duration.ofMillis(300)));
    Lease lease = a.lock("r").tryAcquire().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.events.contains("renewal r RENEWED"));
    assertThat(seen.held).hasValue(1);

    clients.space().restart(); // drops every hold
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.events.contains("lost r"));
    assertThat(seen.events).contains("renewal r LOST", "ended r");
    assertThat(seen.events.indexOf("renewal r LOST")).isLessThan(seen.events.indexOf("lost r"));
    assertThat(seen.held).hasValue(0);
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  @DisplayName(
      "a lease asked about while its loss is being reported answers LeaseLostException with the"
          + " reason (seen under load: a NullPointerException from extend and release)")
  void leaseAskedWhileItsLossIsReported() throws Exception {
    // The observer hears leaseEnded on the watchdog's thread, between the lease turning LOST and
    // its listeners being told: the window in which another thread can call the lease.
    List<Throwable> answers = new CopyOnWriteArrayList<>();
    List<String> reasons = new CopyOnWriteArrayList<>();
    LockObserver asking =
        new LockObserver() {
          @Override
          public void leaseEnded(String store, Lease lease) {
            answers.add(thrownBy(() -> lease.extend(Duration.ofSeconds(5))));
            answers.add(thrownBy(lease::release));
            Throwable listening = thrownBy(() -> lease.onLost((l, r) -> reasons.add(r.reason())));
            answers.add(
                listening instanceof AssertionError
                    ? new LeaseLostException("-", LeaseLostException.Kind.NOT_HELD, "")
                    : listening);
          }
        };
    LockClient a =
        client(
            LockOptions.builder()
                .observer(asking)
                .autoRenew(false)
                .leaseTime(Duration.ofMillis(300)));
    a.lock("race").tryAcquire().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == 3);
    assertThat(answers).allSatisfy(t -> assertThat(t).isInstanceOf(LeaseLostException.class));
    assertThat(reasons).singleElement().asString().contains("expired");
  }

  private static Throwable thrownBy(Runnable call) {
    try {
      call.run();
      return new AssertionError("no exception");
    } catch (RuntimeException e) {
      return e;
    }
  }

  @Test
  @DisplayName("failed renewals are reported as FAILED until the lease runs out")
  void failedRenewals() {
    Recording seen = new Recording();
    // Renewed at a third of 1.5 s: a renewal thread a second late on a loaded machine still gets
    // to fail before the lease runs out.
    LockClient a = client(LockOptions.builder().observer(seen).leaseTime(Duration.ofMillis(1500)));
    a.lock("f").tryAcquire().orElseThrow();
    clients.space().startOutage();
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.events.contains("lost f"));
    assertThat(seen.events).contains("renewal f FAILED").doesNotContain("renewal f LOST");
    assertThat(seen.held).hasValue(0);
  }

  @Test
  @DisplayName("an observer that throws is ignored: acquire, renewal and release still work")
  void throwingObserver() {
    AtomicReference<String> last = new AtomicReference<>();
    LockObserver rude =
        new LockObserver() {
          @Override
          public void acquireEnded(
              String store, String lockName, AcquireOutcome outcome, Duration took) {
            last.set(outcome.name());
            throw new IllegalStateException("observer bug");
          }

          @Override
          public void leaseEnded(String store, Lease lease) {
            throw new IllegalStateException("observer bug");
          }
        };
    LockClient a = client(LockOptions.builder().observer(rude));
    LockClient b = client(LockOptions.builder());
    Lease lease = a.lock("t").tryAcquire().orElseThrow();
    assertThat(last).hasValue("ACQUIRED");
    assertThat(b.lock("t").tryAcquire()).isEmpty();
    lease.release();
    assertThat(b.lock("t").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("the observer is an option: not set means NONE, null is refused, merge keeps it")
  void observerOption() {
    assertThat(LockOptions.defaults().observer()).isSameAs(LockObserver.NONE);
    assertThatThrownBy(() -> LockOptions.builder().observer(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("observer");
    Recording seen = new Recording();
    LockOptions mine = LockOptions.builder().observer(seen).build();
    assertThat(mine.mergedWith(LockOptions.defaults()).observer()).isSameAs(seen);
    assertThat(LockOptions.defaults().mergedWith(mine).observer()).isSameAs(seen);
    assertThat(mine.toBuilder().build().observer()).isSameAs(seen);
  }

  /** Spans, waits, renewal lag and release margins, as text, in order. */
  static final class Timings implements LockObserver {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<Duration> lags = new CopyOnWriteArrayList<>();
    final List<Duration> margins = new CopyOnWriteArrayList<>();
    final List<Duration> waits = new CopyOnWriteArrayList<>();

    @Override
    public Span started(Operation operation, String store, String lockName) {
      String thread = Thread.currentThread().getName();
      events.add("start " + operation + " " + lockName);
      return outcome -> {
        String where = Thread.currentThread().getName().equals(thread) ? "" : " ON ANOTHER THREAD";
        events.add("end " + operation + " " + lockName + " " + outcome + where);
      };
    }

    @Override
    public void acquireEnded(String store, String lockName, AcquireOutcome outcome, Duration took) {
      events.add("acquire " + lockName + " " + outcome);
    }

    @Override
    public void waitStarted(String store, String lockName) {
      events.add("wait " + lockName);
    }

    @Override
    public void waitEnded(String store, String lockName, AcquireOutcome outcome, Duration waited) {
      events.add("waited " + lockName + " " + outcome);
      waits.add(waited);
    }

    @Override
    public void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {
      if (late.isNegative() || !leaseTime.equals(Duration.ofMillis(600))) {
        events.add("BAD renewalDue " + late + " " + leaseTime);
      }
      lags.add(late);
    }

    @Override
    public void releasedWithMargin(
        String store, String lockName, Duration remaining, Duration leaseTime) {
      events.add("margin " + lockName);
      margins.add(remaining);
    }
  }

  @Test
  @DisplayName(
      "each acquire and release is a span ended once with its outcome, after the acquire's report")
  void acquireAndReleaseSpans() throws Exception {
    Timings seen = new Timings();
    LockClient a = client(LockOptions.builder().observer(seen).leaseTime(Duration.ofSeconds(30)));
    LockClient b = client(LockOptions.builder());
    Lease lease = a.lock("s").tryAcquire().orElseThrow();
    Lease taken = b.lock("s2").tryAcquire().orElseThrow();
    assertThat(a.lock("s2").tryAcquire()).isEmpty();
    lease.release();
    taken.release();

    assertThat(seen.events)
        .containsExactly(
            "start ACQUIRE s",
            "acquire s ACQUIRED",
            "end ACQUIRE s ACQUIRED",
            "start ACQUIRE s2",
            "acquire s2 BUSY",
            "end ACQUIRE s2 BUSY",
            "start RELEASE s",
            "margin s",
            "end RELEASE s RELEASED");
    assertThat(seen.margins.get(0)).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
  }

  @Test
  @DisplayName("a release of a lost lease ends its span LOST; no margin is reported after a loss")
  void lostReleaseSpan() {
    Timings seen = new Timings();
    LockClient a =
        client(
            LockOptions.builder()
                .observer(seen)
                .autoRenew(false)
                .leaseTime(Duration.ofMillis(200)));
    Lease lease = a.lock("x").tryAcquire().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
    clients.space().restart(); // the hold is gone in the store too
    assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
    assertThat(seen.events).endsWith("start RELEASE x", "margin x", "end RELEASE x LOST");
  }

  @Test
  @DisplayName(
      "a wait is reported once, from the first busy answer to the hand-off, with its outcome")
  void waitsAreReported() throws Exception {
    Timings seen = new Timings();
    LockClient a = client(LockOptions.builder().observer(seen));
    LockClient b = client(LockOptions.builder());
    Lease holder = b.lock("w").tryAcquire().orElseThrow();
    assertThatThrownBy(() -> a.lock("w").acquire(Duration.ofMillis(100)))
        .isInstanceOf(LockTimeoutException.class);
    Thread waiter =
        new Thread(
            () -> {
              try {
                a.lock("w").acquire(Duration.ofSeconds(30)).release();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.events.size() >= 7);
    holder.release();
    waiter.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(seen.events)
        .filteredOn(e -> e.startsWith("wait"))
        .containsExactly("wait w", "waited w TIMEOUT", "wait w", "waited w ACQUIRED");
    assertThat(seen.waits.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
    // The wait ends before the acquire does: its span closes last.
    assertThat(seen.events.indexOf("waited w ACQUIRED"))
        .isLessThan(seen.events.indexOf("end ACQUIRE w ACQUIRED"));
  }

  @Test
  @DisplayName("every renewal reports how late it was sent and is a span of its own")
  void renewalLagAndSpans() {
    Timings seen = new Timings();
    LockClient a = client(LockOptions.builder().observer(seen).leaseTime(Duration.ofMillis(600)));
    Lease lease = a.lock("r").tryAcquire().orElseThrow();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> seen.events.stream().filter(e -> e.equals("end RENEWAL r RENEWED")).count() >= 2);
    lease.release();
    assertThat(seen.lags).hasSizeGreaterThanOrEqualTo(2);
    assertThat(seen.events).contains("start RENEWAL r").noneMatch(e -> e.startsWith("BAD"));
  }

  @Test
  @DisplayName("losses carry their kind: not held, expired, renewal failed")
  void lossKinds() {
    List<LeaseLostException.Kind> kinds = new CopyOnWriteArrayList<>();
    LockObserver byKind =
        new LockObserver() {
          @Override
          public void leaseLost(String store, Lease lease, LeaseLostException reason) {
            kinds.add(reason.kind());
          }
        };
    LockClient a =
        client(LockOptions.builder().observer(byKind).leaseTime(Duration.ofMillis(1500)));
    a.lock("gone").tryAcquire().orElseThrow();
    clients.space().restart();
    await().atMost(Duration.ofSeconds(10)).until(() -> kinds.size() == 1);
    assertThat(kinds).containsExactly(LeaseLostException.Kind.NOT_HELD);

    LockClient c =
        client(
            LockOptions.builder()
                .observer(byKind)
                .autoRenew(false)
                .leaseTime(Duration.ofMillis(200)));
    c.lock("short").tryAcquire().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> kinds.size() == 2);
    assertThat(kinds.get(1)).isEqualTo(LeaseLostException.Kind.EXPIRED);

    a.lock("cut").tryAcquire().orElseThrow();
    clients.space().startOutage();
    await().atMost(Duration.ofSeconds(10)).until(() -> kinds.size() == 3);
    clients.space().endOutage();
    assertThat(kinds.get(2)).isEqualTo(LeaseLostException.Kind.RENEWAL_FAILED);
  }

  @Test
  @DisplayName("a span whose end throws is ignored: the release still happens")
  void throwingSpan() {
    LockObserver rude =
        new LockObserver() {
          @Override
          public Span started(Operation operation, String store, String lockName) {
            return outcome -> {
              throw new IllegalStateException("span bug");
            };
          }
        };
    LockClient a = client(LockOptions.builder().observer(rude));
    LockClient b = client(LockOptions.builder());
    a.lock("t").tryAcquire().orElseThrow().release();
    assertThat(b.lock("t").tryAcquire()).isPresent();
  }

  @Test
  @DisplayName(
      "a renewal the store granted keeps the lease even when the observer holds up the renewal"
          + " thread past the old deadline (seen: lost by expiry); the next renewal shows the lag")
  void slowObserverDoesNotLoseARenewedLease() {
    Duration lease = Duration.ofSeconds(6);
    Duration stall = Duration.ofMillis(4500); // from the first renewal (at 2 s) past 6 s
    List<String> lost = new CopyOnWriteArrayList<>();
    List<Duration> lags = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean stalled =
        new java.util.concurrent.atomic.AtomicBoolean();
    LockObserver slow =
        new LockObserver() {
          @Override
          public void renewalEnded(
              String store, String lockName, RenewalOutcome outcome, Duration took) {
            if (stalled.compareAndSet(false, true)) {
              try {
                Thread.sleep(stall.toMillis());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }

          @Override
          public void renewalDue(String store, String lockName, Duration late, Duration leaseTime) {
            lags.add(late);
          }

          @Override
          public void leaseLost(String store, Lease l, LeaseLostException reason) {
            lost.add(reason.reason());
          }
        };
    LockClient a = client(LockOptions.builder().observer(slow).leaseTime(lease));
    Lease held = a.lock("slow").tryAcquire().orElseThrow();
    await().atMost(Duration.ofSeconds(30)).until(() -> lags.size() >= 2);
    assertThat(lost).isEmpty();
    assertThat(held.isValid()).isTrue();
    assertThat(lags.get(1)).isGreaterThan(Duration.ofSeconds(1));
    held.release();
  }
}
