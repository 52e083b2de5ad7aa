package dev.locksmith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A caller whose interrupt flag is set, as {@link java.util.concurrent.locks.ReentrantLock} treats
 * it: calls that promise not to wait (tryAcquire(), tryLock(), release, extend, isLocked) ignore
 * the flag, make their store call, and leave the flag as it was.
 */
class InterruptedCallerTest {

  /**
   * The mem: store behind a driver that refuses to work on an interrupted thread, as Lettuce, the
   * ZooKeeper client and spymemcached do.
   */
  private static final class InterruptSensitiveStore implements LockStore {
    private final MemLockStore delegate;

    InterruptSensitiveStore(MemLockStore delegate) {
      this.delegate = delegate;
    }

    private void refuseIfInterrupted() {
      if (Thread.currentThread().isInterrupted()) {
        throw new IllegalStateException("driver: command interrupted");
      }
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    @Override
    public String keyPrefix() {
      return delegate.keyPrefix();
    }

    @Override
    public Set<Capability> promises() {
      return delegate.promises();
    }

    @Override
    public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
      refuseIfInterrupted();
      return delegate.tryAcquire(key, owner, leaseTime);
    }

    @Override
    public boolean extend(LockKey key, String owner, Duration leaseTime) {
      refuseIfInterrupted();
      return delegate.extend(key, owner, leaseTime);
    }

    @Override
    public ReleaseOutcome release(LockKey key, String owner) {
      refuseIfInterrupted();
      return delegate.release(key, owner);
    }

    @Override
    public LockState read(LockKey key) {
      refuseIfInterrupted();
      return delegate.read(key);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private final LockClient client =
      LockClient.of(
          new InterruptSensitiveStore(
              new MemLockStore(MemLockSpace.named("interrupted-" + UUID.randomUUID()))));

  @AfterEach
  void close() {
    Thread.interrupted();
    client.close();
  }

  @Test
  @DisplayName("tryAcquire() on an interrupted thread takes a free lock and keeps the flag")
  void tryAcquireIgnoresFlag() {
    DistributedLock lock = client.lock("free");
    Thread.currentThread().interrupt();
    Optional<Lease> lease = lock.tryAcquire();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(lease).isPresent();
    assertThat(lock.isLocked()).isTrue();
    lease.get().extend(Duration.ofSeconds(5));
    lease.get().release();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    Thread.interrupted();
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  @DisplayName("tryAcquire() on an interrupted thread finds a held lock busy and keeps the flag")
  void tryAcquireBusyKeepsFlag() {
    Lease held = client.lock("held").tryAcquire().orElseThrow();
    Thread.currentThread().interrupt();
    assertThat(client.lock("held").tryAcquire()).isEmpty();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    Thread.interrupted();
    held.release();
  }

  @Test
  @DisplayName("asLock().tryLock() on an interrupted thread takes a free lock and keeps the flag")
  void tryLockIgnoresFlag() {
    ThreadOwnedLock lock = client.lock("view").asLock();
    Thread.currentThread().interrupt();
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    lock.unlock();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    Thread.interrupted();
    assertThat(client.lock("view").isLocked()).isFalse();
  }

  @Test
  @DisplayName("lock() on an interrupted thread acquires, and the flag is still set afterwards")
  void lockKeepsFlag() {
    ThreadOwnedLock lock = client.lock("uninterruptible").asLock();
    Thread.currentThread().interrupt();
    lock.lock();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    lock.unlock();
    Thread.interrupted();
    assertThat(client.lock("uninterruptible").isLocked()).isFalse();
  }

  @Test
  @DisplayName("lockInterruptibly() takes a free lock, nests, and refuses an interrupted caller")
  void lockInterruptiblyOnAFreeLock() throws Exception {
    ThreadOwnedLock lock = client.lock("interruptible").asLock();
    lock.lockInterruptibly();
    lock.lockInterruptibly();
    assertThat(lock.getHoldCount()).isEqualTo(2);
    lock.unlock();
    lock.unlock();
    assertThat(client.lock("interruptible").isLocked()).isFalse();

    Thread.currentThread().interrupt();
    assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
    assertThat(Thread.currentThread().isInterrupted())
        .as("the flag is consumed by the exception, as in java.util.concurrent")
        .isFalse();
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(client.lock("interruptible").isLocked()).isFalse();
  }

  @Test
  @DisplayName(
      "lockInterruptibly() waiting for a held lock gives up when interrupted, holding nothing")
  void lockInterruptiblyGivesUpWhileWaiting() throws Exception {
    ThreadOwnedLock lock = client.lock("contended").asLock();
    lock.lock();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                lock.lockInterruptibly();
                outcome.set(new AssertionError("acquired a held lock"));
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    waiter.start();
    // The waiter is parked in the engine's wait, not still starting.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                waiter.getState() == Thread.State.TIMED_WAITING
                    || waiter.getState() == Thread.State.WAITING);
    waiter.interrupt();
    waiter.join(Duration.ofSeconds(10).toMillis());
    assertThat(waiter.isAlive()).isFalse();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    lock.unlock();
    assertThat(client.lock("contended").isLocked())
        .as("the interrupted waiter left no hold behind")
        .isFalse();
  }
}
