package dev.locksmith.spring.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the lock store answers, as every caller of the application's client sees it: the
 * {@code @Locked} advice, {@link dev.locksmith.spring.LockTemplate}, the health indicator, and the
 * client that connects after a lenient startup. An outage is logged twice, whatever the number of
 * calls that meet it: once at WARN when it starts (one line with the cause) and once at INFO when
 * it ends (one line with its length); each failed call is logged at DEBUG.
 *
 * <p>Callers stamp each call with {@link #now()} before it goes to the store and report how it
 * ended, so that calls in flight across a change cannot reverse it: an answer to a call made before
 * the outage began does not end the outage, and a failure of a call made before it ended does not
 * start a new one. Thread-safe: a burst of failures from many threads starts one outage and logs
 * one line.
 */
public final class StoreOutage {

  private static final Logger log = LoggerFactory.getLogger(StoreOutage.class);

  private final String store;
  private final Object lock = new Object();
  // Written under lock; read without it on the answered() fast path.
  private volatile @Nullable Outage current;
  // When the last outage ended (System.nanoTime()); guarded by lock.
  private long lastEnd;

  /** Tracks the store described as {@code store} in logs (a URI without credentials). */
  public StoreOutage(String store) {
    this.store = Objects.requireNonNull(store, "store must not be null");
    this.lastEnd = System.nanoTime();
  }

  /** The store, as logs and the health indicator name it. */
  public String store() {
    return store;
  }

  /** The stamp of a call about to go to the store, for {@link #answered} and {@link #failed}. */
  public static long now() {
    return System.nanoTime();
  }

  /** When the current outage began, if the store is not answering. */
  public Optional<Instant> downSince() {
    Outage o = current;
    return o == null ? Optional.empty() : Optional.of(o.since);
  }

  /**
   * The store answered a call stamped {@code started}: ends the outage if the call was made after
   * it began.
   */
  public void answered(long started) {
    if (current == null) {
      return;
    }
    synchronized (lock) {
      Outage o = current;
      if (o == null || started - o.startNanos < 0) {
        return;
      }
      long now = System.nanoTime();
      current = null;
      lastEnd = now;
      log.info(
          o.endMessage,
          store,
          seconds(Duration.ofNanos(now - o.startNanos)),
          o.failures,
          o.failures == 1 ? "call" : "calls");
    }
  }

  /**
   * A call stamped {@code started}, described as {@code call} ({@code "@Locked Jobs.report() (lock
   * 'report')"}), failed because the store did not answer ({@code error}): starts an outage if none
   * is going on, else counts the call.
   */
  public void failed(long started, String call, Throwable error) {
    failed(started, call, error, RUNNING);
  }

  /**
   * The client could not be opened at startup (stamped {@code started}) and the application starts
   * without it ({@code locksmith.startup=lenient}): starts an outage, with a WARN line that says
   * so.
   */
  public void unreachableAtStartup(long started, Throwable error) {
    failed(started, "Opening the client at startup", error, AT_STARTUP);
  }

  private void failed(long started, String call, Throwable error, Lines lines) {
    String cause = cause(error);
    synchronized (lock) {
      Outage o = current;
      if (o == null && started - lastEnd >= 0) {
        current = new Outage(System.nanoTime(), Instant.now(), lines.end());
        log.warn(lines.start(), store, cause);
        if (log.isDebugEnabled()) {
          log.debug("The first failure of the outage, from {}", call, error);
        }
        return;
      }
      if (o != null) {
        o.failures++;
      }
    }
    log.debug("{} failed; lock store {} is not answering: {}", call, store, cause);
  }

  /** The failure in one line: its message, or its type when it has none. */
  static String cause(Throwable error) {
    String message = error.getMessage();
    String text = message == null || message.isBlank() ? error.toString() : message;
    return text.strip().replaceAll("\\s*\\R\\s*", " ");
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  /**
   * The two lines of one kind of outage: {@code start} with the store and the cause, {@code end}
   * with the store, the length, the number of failed calls and "call" or "calls".
   */
  private record Lines(String start, String end) {}

  private static final Lines RUNNING =
      new Lines(
          "Lock store {} is not answering: {}; @Locked calls fail and scheduled @Locked jobs are"
              + " skipped until it answers",
          "Lock store {} answers again after {} ({} failed {} meanwhile)");

  private static final Lines AT_STARTUP =
      new Lines(
          "Lock store {} cannot be reached at startup: {}; the application starts without it"
              + " (locksmith.startup=lenient): @Locked calls fail and scheduled @Locked jobs are"
              + " skipped until it answers",
          "Lock store {} answers, {} after startup; @Locked calls work now ({} failed {}"
              + " meanwhile)");

  private static final class Outage {
    final long startNanos;
    final Instant since;
    final String endMessage;
    int failures = 1; // guarded by StoreOutage.lock

    Outage(long startNanos, Instant since, String endMessage) {
      this.startNanos = startNanos;
      this.since = since;
      this.endMessage = endMessage;
    }
  }
}
