package dev.locksmith.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockStoreException;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.fixture.RunningStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * ShedLock's own provider suite ({@link AbstractExtensibleLockProviderIntegrationTest}, which runs
 * every test of {@code AbstractLockProviderIntegrationTest} too) on one Locksmith store, plus this
 * module's own rules. A subclass per store names the store; its fixture starts once per class.
 *
 * <p>{@link #assertLocked} and {@link #assertUnlocked} look in the store through another client (a
 * separate process): it reads the lock and tries to take it, never the provider's memory.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ShedLockProviderContract extends AbstractExtensibleLockProviderIntegrationTest {

  private @Nullable LocksmithLockProvider provider;

  /** The store, a static extension of the subclass. */
  abstract StoreUnderTest store();

  @BeforeEach
  void newProvider() {
    provider = new LocksmithLockProvider(store().providerClient());
  }

  @AfterEach
  void closeProvider() {
    if (provider != null) {
      provider.close();
    }
  }

  @Override
  protected ExtensibleLockProvider getLockProvider() {
    if (provider == null) {
      throw new IllegalStateException("no provider before the test");
    }
    return provider;
  }

  @Override
  protected void assertLocked(String lockName) {
    LockClient checker = store().checkerClient();
    assertThat(checker.lock(lockName).isLocked())
        .as("the store has '%s' locked", lockName)
        .isTrue();
    Optional<Lease> taken = checker.lock(lockName).tryAcquire();
    taken.ifPresent(Lease::release);
    assertThat(taken).as("another process cannot take '%s'", lockName).isEmpty();
  }

  @Override
  protected void assertUnlocked(String lockName) {
    LockClient checker = store().checkerClient();
    assertThat(checker.lock(lockName).isLocked())
        .as("the store has '%s' unlocked", lockName)
        .isFalse();
    Optional<Lease> taken = checker.lock(lockName).tryAcquire();
    taken.ifPresent(Lease::release);
    assertThat(taken).as("another process can take '%s'", lockName).isNotEmpty();
  }

  RunningStore running() {
    return store().running();
  }

  static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
  }

  static String uniqueName() {
    return "shedlock-" + UUID.randomUUID();
  }

  @Test
  @DisplayName("after unlock, another process cannot take the lock before lockAtLeastFor, then can")
  void lockAtLeastForIsKeptForOtherProcesses() throws InterruptedException {
    String name = uniqueName();
    Duration atLeast = running().shortLease();
    long start = System.nanoTime();
    SimpleLock lock =
        getLockProvider().lock(config(name, atLeast.multipliedBy(10), atLeast)).orElseThrow();
    lock.unlock();
    LockClient checker = store().checkerClient();
    assertThat(checker.lock(name).tryAcquire()).as("taken right after unlock").isEmpty();
    long deadline = start + atLeast.plus(running().timingSlack()).toNanos();
    Optional<Lease> taken = Optional.empty();
    while (taken.isEmpty() && System.nanoTime() - deadline < 0) {
      taken = checker.lock(name).tryAcquire();
      if (taken.isEmpty()) {
        Thread.sleep(20);
      }
    }
    long heldNanos = System.nanoTime() - start;
    assertThat(taken).as("free within lockAtLeastFor plus the store's slack").isNotEmpty();
    taken.get().release();
    assertThat(Duration.ofNanos(heldNanos))
        .as("held at least lockAtLeastFor")
        .isGreaterThan(atLeast);
  }

  @Test
  @DisplayName(
      "closing the provider, then its client, during lockAtLeastFor does not free the lock (on a"
          + " session-bound store it does: the hold ends with the session)")
  void closingDuringLockAtLeastForKeepsTheLock() {
    LockClient client = store().open();
    boolean sessionBound = client.capabilities().contains(Capability.SESSION_BOUND);
    String name = uniqueName();
    // Long enough that closing two clients and one tryAcquire fit in it on a loaded machine.
    Duration atLeast = Duration.ofSeconds(10);
    long start = System.nanoTime();
    LocksmithLockProvider provider = new LocksmithLockProvider(client);
    provider.lock(config(name, Duration.ofSeconds(30), atLeast)).orElseThrow().unlock();
    provider.close(); // As Spring closes it: before the client it depends on.
    client.close();
    Optional<Lease> taken = store().checkerClient().lock(name).tryAcquire();
    long elapsed = System.nanoTime() - start;
    taken.ifPresent(Lease::release);
    assertThat(Duration.ofNanos(elapsed)).as("checked within lockAtLeastFor").isLessThan(atLeast);
    if (sessionBound) {
      // Lease.releaseHeldAtLeast: a session-bound hold cannot outlive its client's session.
      assertThat(taken).as("taken once the holder's session closed").isNotEmpty();
    } else {
      assertThat(taken).as("taken within lockAtLeastFor after the client closed").isEmpty();
    }
  }

  @Test
  @DisplayName("a lock lost to expiry and taken by another process is not extended")
  void lockLostToExpiryIsNotExtended() throws InterruptedException {
    String name = uniqueName();
    Duration atMost = running().shortLease();
    long start = System.nanoTime();
    SimpleLock lock = getLockProvider().lock(config(name, atMost, Duration.ZERO)).orElseThrow();
    LockClient checker = store().checkerClient();
    long deadline = start + atMost.plus(running().timingSlack()).toNanos();
    Optional<Lease> rival = Optional.empty();
    while (rival.isEmpty() && System.nanoTime() - deadline < 0) {
      rival = checker.lock(name).withAutoRenew(true).tryAcquire();
      if (rival.isEmpty()) {
        Thread.sleep(20);
      }
    }
    assertThat(rival).as("another process takes it once lockAtMostFor has passed").isNotEmpty();
    try {
      assertThat(lock.extend(Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
      assertThat(rival.get().isValid()).as("the rival still holds it").isTrue();
      assertThat(getLockProvider().lock(config(name, Duration.ofSeconds(30), Duration.ZERO)))
          .as("the provider cannot take it from the rival")
          .isEmpty();
      assertThatThrownBy(lock::unlock)
          .as("ShedLock's contract: a lock is done with after extend, even a failed one")
          .isInstanceOf(IllegalStateException.class);
      assertLocked(name);
    } finally {
      rival.get().release();
    }
  }

  @Test
  @DisplayName("inside a job, currentFencingToken() is the job's token, rising from job to job")
  void jobSeesItsFencingToken() throws InterruptedException {
    String name = uniqueName();
    DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(getLockProvider());
    List<Long> tokens = new ArrayList<>();
    Runnable job = () -> tokens.add(LocksmithLockProvider.currentFencingToken().orElseThrow());
    executor.executeWithLock(job, config(name, Duration.ofSeconds(30), Duration.ZERO));
    executor.executeWithLock(job, config(name, Duration.ofSeconds(30), Duration.ZERO));
    assertThat(tokens).hasSize(2);
    assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
    // A thread of its own: earlier tests of this class leave locks held on the test thread.
    List<OptionalLong> outside = new ArrayList<>();
    Thread t =
        new Thread(
            () -> {
              outside.add(LocksmithLockProvider.currentFencingToken());
              SimpleLock lock =
                  getLockProvider()
                      .lock(config(name, Duration.ofSeconds(30), Duration.ZERO))
                      .orElseThrow();
              outside.add(LocksmithLockProvider.currentFencingToken());
              lock.unlock();
              outside.add(LocksmithLockProvider.currentFencingToken());
            });
    t.start();
    t.join();
    assertThat(outside).hasSize(3);
    assertThat(outside.get(0)).as("before any lock").isEmpty();
    assertThat(outside.get(1).orElseThrow()).as("while locked").isGreaterThan(tokens.get(1));
    assertThat(outside.get(2)).as("after unlock").isEmpty();
  }

  /**
   * The client of the outage rule, which stops the store: one of its own, so that the class's
   * shared clients never see the outage. A store whose client waits long for a dead server may
   * shorten that here.
   */
  LockClient outageClient() {
    return store().open();
  }

  @Test
  @Order(Integer.MAX_VALUE)
  @DisplayName("a store outage is a ShedLock LockException caused by LockStoreException")
  void storeOutageIsALockException() throws InterruptedException {
    Optional<StoreFaults> faults = running().faults();
    assertThat(faults).as(store().name() + "'s fixture must be able to stop the store").isPresent();
    LockClient client = outageClient();
    try (LocksmithLockProvider provider = new LocksmithLockProvider(client)) {
      SimpleLock lock =
          provider.lock(config(uniqueName(), Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
      faults.get().kill();
      try {
        if (client.capabilities().contains(Capability.SESSION_BOUND)) {
          // The session may end before the release gives up: then the hold is lost, not failed,
          // and unlock has nothing left to do.
          try {
            lock.unlock();
          } catch (LockException e) {
            assertThat(e).hasCauseInstanceOf(LockStoreException.class);
          }
        } else {
          assertThatThrownBy(lock::unlock)
              .isInstanceOf(LockException.class)
              .hasCauseInstanceOf(LockStoreException.class);
        }
        assertThatThrownBy(
                () -> provider.lock(config(uniqueName(), Duration.ofSeconds(30), Duration.ZERO)))
            .isInstanceOf(LockException.class)
            .hasCauseInstanceOf(LockStoreException.class);
      } finally {
        faults.get().restart();
      }
      // The client recovers by itself.
      long deadline = System.nanoTime() + running().recoveryTime().toNanos();
      Optional<SimpleLock> again = Optional.empty();
      LockException last = null;
      while (again.isEmpty() && System.nanoTime() - deadline < 0) {
        try {
          again = provider.lock(config(uniqueName(), Duration.ofSeconds(30), Duration.ZERO));
        } catch (LockException e) {
          last = e;
          Thread.sleep(50); // Polling a store that refuses at once: not in a tight loop.
        }
      }
      assertThat(again).as("locks again after the restart (last failure: %s)", last).isNotEmpty();
      again.get().unlock();
    }
  }
}
