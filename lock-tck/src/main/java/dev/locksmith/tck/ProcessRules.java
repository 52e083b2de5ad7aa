package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.tck.internal.HolderProcess;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Holders and contenders in child JVMs: a defect that only shows between processes (a JVM-wide
 * lock, a per-process cache, a process-id owner) passes every rule whose clients share one JVM.
 */
public interface ProcessRules extends KitTest {

  @Test
  @Requires(hooks = KitHook.STORE_URI)
  default void rule_13_1_otherProcessExcludes() throws Exception {
    Kit kit = kit();
    String uri = kit.storeUri();
    LockClient here = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(here).multipliedBy(10);
    HolderProcess.Started child = kit.track(HolderProcess.start(uri, name, lease));
    assertThat(here.lock(name).tryAcquire()).as("this process while another holds").isEmpty();
    assertThat(here.lock(name).isLocked()).as("isLocked while another process holds").isTrue();
    child.send("RELEASE");
    assertThat(child.await("RELEASED", Duration.ofSeconds(30))).isNotNull();
    Lease mine = Kit.awaitAcquired(here.lock(name), kit.slack());
    HolderProcess.Started rival =
        kit.track(HolderProcess.attempt(uri, name, lease, Duration.ZERO, null));
    assertThat(rival.acquired()).as("another process while this one holds").isFalse();
    mine.release();
  }

  @Test
  @Requires(hooks = KitHook.STORE_URI)
  default void rule_13_2_killedProcessFreesLock() throws Exception {
    Kit kit = kit();
    LockClient here = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(here);
    HolderProcess.Started child = kit.track(HolderProcess.start(kit.storeUri(), name, lease));
    assertThat(here.lock(name).tryAcquire()).as("while the holder process lives").isEmpty();
    child.signal("KILL");
    long killed = System.nanoTime();
    Lease next = Kit.awaitAcquired(here.lock(name), lease.plus(kit.slack()));
    assertThat(Kit.millisSince(killed)).isLessThanOrEqualTo(lease.plus(kit.slack()).toMillis());
    if (here.capabilities().contains(Capability.FENCING) && child.token() != 0) {
      assertThat(next.fencingToken())
          .as("token after the killed holder")
          .isGreaterThan(child.token());
    }
    next.release();
  }

  @Test
  @Requires(hooks = KitHook.STORE_URI, leaseExpiry = true)
  default void rule_13_3_stoppedProcessLosesToRival() throws Exception {
    Kit kit = kit();
    LockClient here = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(here);
    HolderProcess.Started child = kit.track(HolderProcess.start(kit.storeUri(), name, lease));
    child.signal("STOP");
    Lease next;
    try {
      next = Kit.awaitAcquired(here.lock(name), lease.plus(kit.slack()));
      if (here.capabilities().contains(Capability.FENCING)) {
        assertThat(next.fencingToken())
            .as("the rival's token against the stopped holder's")
            .isGreaterThan(child.token());
      }
    } finally {
      child.signal("CONT");
    }
    // Woken, the holder's renewal finds the hold gone (or its lease ran out on its own clock).
    assertThat(child.await("LOST", lease.plus(kit.slack()).plus(kit.storeTimeout())))
        .as("the continued holder is told its lease is lost")
        .isNotNull();
    child.send("CHECK");
    assertThat(child.await("VALID", Duration.ofSeconds(30))).isEqualTo("VALID false");
    child.send("RELEASE");
    assertThat(child.await("LOST-AT-RELEASE", Duration.ofSeconds(30)))
        .as("the stale holder's release")
        .isNotNull();
    assertThat(next.isValid()).as("the rival's lease after the stale holder's release").isTrue();
    assertThat(kit.client().lock(name).tryAcquire()).as("the lock").isEmpty();
    next.release();
  }

  @Test
  @Requires(hooks = KitHook.STORE_URI)
  default void rule_13_4_sameOwnerPrefixStillExcludes() throws Exception {
    Kit kit = kit();
    LockClient here = kit.client();
    String name = kit.name("x");
    Duration lease = kit.expiryLease(here).multipliedBy(10);
    String uri = kit.storeUri();
    HolderProcess.Started first =
        kit.track(HolderProcess.attempt(uri, name, lease, Duration.ofSeconds(30), "tck-same"));
    assertThat(first.acquired()).as("the first process").isTrue();
    HolderProcess.Started second =
        kit.track(HolderProcess.attempt(uri, name, lease, Duration.ZERO, "tck-same"));
    assertThat(second.acquired())
        .as("a second process with the same owner prefix while the first holds")
        .isFalse();
    Optional<Lease> here1 = here.lock(name).tryAcquire();
    assertThat(here1).as("this process while the first holds").isEmpty();
  }

  @Test
  @Requires(value = Capability.SESSION_BOUND, hooks = KitHook.STORE_URI)
  default void rule_13_5_stoppedSessionHolderIsTold() throws Exception {
    Kit kit = kit();
    LockClient here = kit.client();
    String name = kit.name("x");
    Duration session = kit.expiryLease(here);
    HolderProcess.Started child = kit.track(HolderProcess.start(kit.storeUri(), name, session));
    child.signal("STOP");
    Lease next;
    try {
      next = Kit.awaitAcquired(here.lock(name), session.plus(kit.slack()).multipliedBy(2));
      if (here.capabilities().contains(Capability.FENCING)) {
        assertThat(next.fencingToken())
            .as("the rival's token against the stopped holder's")
            .isGreaterThan(child.token());
      }
      // Queued before it runs again, so that asking isValid() and then releasing are the very
      // first things it does: before its client has read the closed socket.
      child.send("CHECK");
      child.send("RELEASE");
    } finally {
      child.signal("CONT");
    }
    assertThat(child.await("VALID", Duration.ofSeconds(30)))
        .as("isValid(), the first call of the stopped holder after it continued")
        .isEqualTo("VALID false");
    String released =
        child.awaitAny(
            kit.storeTimeout().plus(kit.slack()).plusSeconds(30),
            "LOST-AT-RELEASE",
            "RELEASED",
            "FAILED-AT-RELEASE");
    assertThat(released)
        .as("the stopped holder's release, at once after it continued")
        .startsWith("LOST-AT-RELEASE");
    child.send("CHECK");
    assertThat(child.await("VALID", Duration.ofSeconds(30))).isEqualTo("VALID false");
    assertThat(child.await("LOST ", kit.slack()))
        .as("onLost of the holder whose session ended while it was stopped")
        .isNotNull();
    assertThat(next.isValid()).as("the rival's lease after the stale holder's release").isTrue();
    next.release();
  }
}
