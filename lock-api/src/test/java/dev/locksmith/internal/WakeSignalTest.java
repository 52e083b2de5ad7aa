package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A waiter's wake-up: a signal ends one wait, early; signals do not pile up for later waits. */
class WakeSignalTest {

  private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(30);
  private static final long SHORT_WAIT = TimeUnit.MILLISECONDS.toNanos(200);

  private static long timed(WakeSignal signal, long nanos) throws InterruptedException {
    long start = System.nanoTime();
    signal.await(nanos);
    return System.nanoTime() - start;
  }

  @Test
  @DisplayName("a signal that came before the wait ends it at once")
  void signalBeforeWait() throws InterruptedException {
    WakeSignal signal = new WakeSignal();
    signal.signal();
    assertThat(timed(signal, LONG_WAIT)).isLessThan(LONG_WAIT / 2);
  }

  @Test
  @DisplayName("a signal during the wait ends it early")
  void signalDuringWait() throws InterruptedException {
    WakeSignal signal = new WakeSignal();
    Thread signaller =
        new Thread(
            () -> {
              try {
                Thread.sleep(100);
              } catch (InterruptedException e) {
                return;
              }
              signal.signal();
            });
    signaller.start();
    assertThat(timed(signal, LONG_WAIT)).isLessThan(LONG_WAIT / 2);
    signaller.join();
  }

  @Test
  @DisplayName("many signals wake one wait; the next wait waits its full time")
  void signalsDoNotPileUp() throws InterruptedException {
    WakeSignal signal = new WakeSignal();
    for (int i = 0; i < 5; i++) {
      signal.signal();
    }
    signal.await(LONG_WAIT);
    assertThat(timed(signal, SHORT_WAIT)).isGreaterThanOrEqualTo(SHORT_WAIT);
  }
}
