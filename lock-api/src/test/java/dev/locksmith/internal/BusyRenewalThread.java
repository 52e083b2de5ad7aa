package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a watchdog's renewal thread busy until closed: what the test queues meanwhile waits behind
 * it, and runs together once it is closed.
 */
final class BusyRenewalThread implements AutoCloseable {

  private final CountDownLatch free = new CountDownLatch(1);

  /** Occupies {@code watchdog}'s renewal thread; returns once the thread is busy. */
  BusyRenewalThread(LeaseWatchdog watchdog) throws InterruptedException {
    CountDownLatch busy = new CountDownLatch(1);
    watchdog.execute(
        () -> {
          busy.countDown();
          try {
            free.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(busy.await(30, TimeUnit.SECONDS)).as("the renewal thread took the task").isTrue();
  }

  /** Lets the renewal thread go on. */
  @Override
  public void close() {
    free.countDown();
  }
}
