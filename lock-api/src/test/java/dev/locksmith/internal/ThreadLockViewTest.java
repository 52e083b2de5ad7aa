package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockOptions;
import dev.locksmith.ThreadOwnedLock;
import dev.locksmith.spi.StoreTiming;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@code java.util.concurrent.locks.Lock} view: counting, ownership by thread, its refusals.
 */
class ThreadLockViewTest {

  private final TimedStore store = new TimedStore(StoreTiming.MILLISECONDS);
  private final EngineClient client = new EngineClient(store, LockOptions.defaults());
  private final ThreadOwnedLock lock = client.lock("view").asLock();

  @AfterEach
  void close() {
    Thread.interrupted();
    client.close();
  }

  private static boolean onOtherThread(java.util.function.BooleanSupplier call) throws Exception {
    return CompletableFuture.supplyAsync(call::getAsBoolean).get(30, TimeUnit.SECONDS);
  }

  @Test
  @DisplayName(
      "every form of locking nests on the holding thread and counts; unlock counts down and"
          + " releases the store's hold at zero")
  void nestsAndCounts() throws Exception {
    assertThat(lock.getHoldCount()).isZero();
    assertThat(lock.currentLease()).isEmpty();
    lock.lock();
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
    lock.lockInterruptibly();
    assertThat(lock.getHoldCount()).isEqualTo(4);
    assertThat(lock.currentLease()).isPresent();
    for (int left = 3; left >= 0; left--) {
      lock.unlock();
      assertThat(lock.getHoldCount()).isEqualTo(left);
      assertThat(client.lock("view").isLocked())
          .as("held with %d holds left", left)
          .isEqualTo(left > 0);
    }
    assertThat(lock.isHeldByCurrentThread()).isFalse();
  }

  @Test
  @DisplayName(
      "another thread finds the lock busy at once with a time of zero or less, and cannot unlock"
          + " it")
  void otherThreads() throws Exception {
    lock.lock();
    assertThat(onOtherThread(lock::tryLock)).isFalse();
    assertThat(
            onOtherThread(
                () -> {
                  try {
                    return lock.tryLock(-5, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                }))
        .isFalse();
    assertThat(onOtherThread(lock::isHeldByCurrentThread)).isFalse();
    assertThat(
            onOtherThread(
                () -> {
                  try {
                    lock.unlock();
                    return true;
                  } catch (IllegalMonitorStateException e) {
                    return e.getMessage().contains("does not hold lock 'view'");
                  }
                }))
        .as("unlock by another thread refused, naming the lock")
        .isTrue();
    lock.unlock();
  }

  @Test
  @DisplayName(
      "tryLock(time) refuses a null unit and an interrupted caller; newCondition is unsupported")
  void refusals() {
    assertThatThrownBy(() -> lock.tryLock(1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("unit");
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS))
        .isInstanceOf(InterruptedException.class);
    assertThat(lock.getHoldCount()).isZero();
    assertThatThrownBy(lock::newCondition)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Condition");
    assertThat(lock).hasToString("ThreadOwnedLock{view}");
  }

  @Test
  @DisplayName(
      "lock() interrupted while it waits keeps waiting, gets the lock, and returns with the"
          + " interrupt flag set")
  void lockInterruptedWhileWaiting() throws Exception {
    EngineClient other = new EngineClient(store, LockOptions.defaults());
    try {
      dev.locksmith.Lease held = other.lock("view").tryAcquire().orElseThrow();
      CompletableFuture<Boolean> waiter = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                lock.lock();
                waiter.complete(Thread.currentThread().isInterrupted());
                lock.unlock();
              });
      t.start();
      // Interrupted once it is parked in its wait (not before it starts).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      t.interrupt();
      assertThat(waiter).as("lock() returned while the lock was held").isNotDone();
      held.release();
      assertThat(waiter.get(30, TimeUnit.SECONDS)).as("interrupt flag after lock()").isTrue();
      t.join(TimeUnit.SECONDS.toMillis(30));
    } finally {
      other.close();
    }
  }
}
