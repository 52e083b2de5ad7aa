package dev.locksmith.mem;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The waiters' queue of {@code mem:NAME?waiters=queue} leaves nothing behind. */
class MemQueueTest {

  private final String space = "queue-" + UUID.randomUUID();

  @Test
  @DisplayName(
      "a queued waiter that got the lock, and one that gave up, leave no release listener behind"
          + " (each would be run at every later release of the lock)")
  void queuedWaitersLeaveNoListeners() throws Exception {
    MemLockSpace s = MemLockSpace.named(space);
    try (LockClient holder = LockClient.open("mem:" + space);
        LockClient waiter = LockClient.open("mem:" + space + "?waiters=queue")) {
      Lease held = holder.lock("q").tryAcquire().orElseThrow();
      assertThat(waiter.lock("q").tryAcquire(Duration.ofMillis(50))).as("gave up").isEmpty();
      assertThat(s.releaseListenerCount()).as("listeners after a waiter gave up").isZero();

      CompletableFuture<Optional<Lease>> queued =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return waiter.lock("q").tryAcquire(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      // Released once the waiter has joined the queue and listens; before, it finds it free.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (s.releaseListenerCount() == 0 && System.nanoTime() < deadline && !queued.isDone()) {
        Thread.onSpinWait();
      }
      held.release();
      Lease got = queued.get(30, TimeUnit.SECONDS).orElseThrow();
      assertThat(s.releaseListenerCount())
          .as("listeners after a queued waiter got the lock")
          .isZero();
      got.release();
    }
  }

  @Test
  @DisplayName(
      "a polling waiter's release subscription ends with its wait, whether it got the lock or gave"
          + " up")
  void pollingWaitersLeaveNoListeners() throws Exception {
    String polling = space + "-poll";
    MemLockSpace s = MemLockSpace.named(polling);
    try (LockClient holder = LockClient.open("mem:" + polling);
        LockClient waiter = LockClient.open("mem:" + polling)) {
      Lease held = holder.lock("p").tryAcquire().orElseThrow();
      assertThat(waiter.lock("p").tryAcquire(Duration.ofMillis(50))).as("gave up").isEmpty();
      assertThat(s.releaseListenerCount()).as("listeners after a waiter gave up").isZero();
      CompletableFuture<Optional<Lease>> waiting =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return waiter.lock("p").tryAcquire(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (s.releaseListenerCount() == 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      held.release();
      Lease got = waiting.get(30, TimeUnit.SECONDS).orElseThrow();
      assertThat(s.releaseListenerCount()).as("listeners after the waiter got the lock").isZero();
      got.release();
    }
  }
}
