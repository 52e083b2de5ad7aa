package dev.locksmith.spring;

import dev.locksmith.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A bean with {@link Locked} methods of every kind, the same in every test application. */
public class Work {

  /** A record whose accessor the SpEL names read. */
  public record Order(long id) {}

  private final AtomicInteger runs = new AtomicInteger();
  private final AtomicReference<String> lostOutcome = new AtomicReference<>();

  /** How often a skippable method ran (through a method: a proxy's own fields are empty). */
  public AtomicInteger runs() {
    return runs;
  }

  /** How the last {@link #holdUntilInterrupted} ended. */
  public AtomicReference<String> lostOutcome() {
    return lostOutcome;
  }

  /** Holds lock {@code hold:NAME} from {@code entered} until {@code leave} opens. */
  @Locked(name = "hold:#{#name}", onBusy = OnBusy.WAIT)
  public void hold(String name, CountDownLatch entered, CountDownLatch leave)
      throws InterruptedException {
    entered.countDown();
    if (!leave.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the test never let go");
    }
  }

  @Locked(name = "hold:#{#name}")
  public Optional<String> skipOptional(String name) {
    runs.incrementAndGet();
    return Optional.of("ran");
  }

  @Locked(name = "hold:#{#name}")
  public String skipNull(String name) {
    runs.incrementAndGet();
    return "ran";
  }

  @Locked(name = "hold:#{#name}")
  public void skipVoid(String name) {
    runs.incrementAndGet();
  }

  @Locked(name = "hold:#{#name}", waitFor = "${test.fail-wait:300ms}", onBusy = OnBusy.FAIL)
  public String fail(String name) {
    runs.incrementAndGet();
    return "ran";
  }

  @Locked(name = "hold:#{#name}", onBusy = OnBusy.WAIT)
  public String waitForIt(String name) {
    runs.incrementAndGet();
    return "ran";
  }

  /** The lease is filled in; the name reads a record accessor and a positional parameter. */
  @Locked(name = "order:#{#order.id()}-line:#{#p1}")
  public Lease orderLine(Order order, int line, Lease lease) {
    if (!lease.isValid() || LockContext.currentLease() != lease) {
      throw new IllegalStateException("the lease parameter is not the current lease");
    }
    return lease;
  }

  /** Returns the current lease's name, read through {@link LockContext}. */
  @Locked(name = "context")
  public String contextName() {
    return LockContext.currentLease().name();
  }

  /** Runs briefly, then keeps the lock taken for a second after it was acquired. */
  @Locked(name = "short:#{#name}", holdAtLeast = "1s")
  public Long shortJob(String name) {
    runs.incrementAndGet();
    return System.nanoTime();
  }

  @Locked(name = "short:#{#name}")
  public Optional<Long> tryShortJob(String name) {
    return Optional.of(System.nanoTime());
  }

  /**
   * Holds lock {@code lost:NAME} until interrupted (returns "interrupted") or {@code leave} opens
   * (returns "finished").
   */
  @Locked(name = "lost:#{#name}")
  public String holdUntilInterrupted(String name, CountDownLatch entered, CountDownLatch leave) {
    entered.countDown();
    String outcome;
    try {
      outcome = leave.await(60, TimeUnit.SECONDS) ? "finished" : "timed out";
    } catch (InterruptedException e) {
      outcome = "interrupted";
    }
    lostOutcome.set(outcome);
    return outcome;
  }

  /** Sleeps {@code time} holding lock {@code slow}, as a job longer than its lease. */
  @Locked(name = "slow")
  public Optional<Lease> slow(Duration time) throws InterruptedException {
    Thread.sleep(time.toMillis());
    return Optional.of(LockContext.currentLease());
  }
}
