package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.cli.internal.FencedResource;
import dev.locksmith.cli.internal.HolderProcess;
import dev.locksmith.cli.internal.StoreCatalog;
import dev.locksmith.cli.internal.StoreTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holders in child JVMs that really die ({@code SIGKILL}) or freeze ({@code SIGSTOP}) mid-hold, on
 * every networked store, with a fenced resource that shows what fencing prevents.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiProcessFaultTest {

  private static final Duration LEASE = Duration.ofSeconds(2);

  private final List<StoreTarget> targets = new ArrayList<>();
  private Server h2;

  @BeforeAll
  void startStores() throws Exception {
    StoreCatalog catalog = StoreCatalog.local();
    for (String name : List.of("redis", "memcached", "zookeeper")) {
      StoreCatalog.Entry e = catalog.get(name);
      if (!e.available()) {
        throw new IllegalStateException(
            "the multi-process fault suite needs " + name + ": " + e.unavailableBecause());
      }
      targets.add(e.start().get());
    }
    h2 = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
    String db = "mp_" + UUID.randomUUID().toString().substring(0, 8);
    targets.add(
        new StoreTarget(
            "h2-tcp",
            "jdbc:h2:tcp://127.0.0.1:" + h2.getPort() + "/mem:" + db + ";DB_CLOSE_DELAY=-1",
            null,
            false,
            Duration.ofMillis(500)));
  }

  @AfterAll
  void stopStores() {
    targets.forEach(StoreTarget::close);
    if (h2 != null) {
      h2.stop();
    }
  }

  Stream<StoreTarget> stores() {
    return targets.stream();
  }

  /** How long after its holder died a lock may stay taken: the lease (or session) and slack. */
  private static Duration freeBound(StoreTarget t) {
    return t.name().equals("zookeeper") ? Duration.ofSeconds(15) : LEASE.plusSeconds(8);
  }

  // The targets are shared by every test: JUnit must not close them after one invocation.
  @ParameterizedTest(name = "{0}", autoCloseArguments = false)
  @MethodSource("stores")
  @DisplayName(
      "a holder whose JVM is SIGKILLed frees its lock within its lease, and the next token is higher")
  void killedHolderFreesLock(StoreTarget target) throws Exception {
    String name = "mp-kill-" + UUID.randomUUID();
    try (LockClient next = target.open(dev.locksmith.LockOptions.defaults());
        HolderProcess.Started holder = HolderProcess.start(target.uri(), name, LEASE)) {
      assertThat(next.lock(name).tryAcquire()).as("the child holds the lock").isEmpty();
      long killedAt = System.nanoTime();
      holder.signal("KILL");
      Lease lease = next.lock(name).acquire(freeBound(target));
      Duration took = Duration.ofNanos(System.nanoTime() - killedAt);
      System.out.printf("%s: lock freed %d ms after SIGKILL%n", target.name(), took.toMillis());
      if (next.capabilities().contains(Capability.FENCING)) {
        assertThat(lease.fencingToken()).isGreaterThan(holder.token());
      }
      lease.release();
    }
  }

  // The targets are shared by every test: JUnit must not close them after one invocation.
  @ParameterizedTest(name = "{0}", autoCloseArguments = false)
  @MethodSource("stores")
  @DisplayName(
      "a holder frozen by SIGSTOP past its lease is told on waking, and fencing stops its stale write")
  void frozenHolderIsFenced(StoreTarget target) throws Exception {
    String name = "mp-stop-" + UUID.randomUUID();
    FencedResource resource = new FencedResource();
    try (LockClient next = target.open(dev.locksmith.LockOptions.defaults());
        HolderProcess.Started holder = HolderProcess.start(target.uri(), name, LEASE)) {
      boolean fencing = next.capabilities().contains(Capability.FENCING);
      assertThat(resource.write(holder.token() == 0 ? 1 : holder.token()))
          .as("the first holder's write lands")
          .isTrue();
      holder.signal("STOP");
      Lease lease;
      try {
        lease = next.lock(name).acquire(freeBound(target));
        long token = fencing ? lease.fencingToken() : 2;
        assertThat(resource.write(token)).as("the new holder's write lands").isTrue();
      } finally {
        holder.signal("CONT");
      }
      // The frozen holder wakes believing it checked its lease just before the pause, and writes.
      holder.send("WRITE");
      String write = holder.await("WRITE ", Duration.ofSeconds(10));
      assertThat(write).as("the holder answered").isNotNull();
      long staleToken = Long.parseLong(write.substring("WRITE ".length()).trim());
      boolean landed = resource.write(fencing ? staleToken : 3);
      if (fencing) {
        assertThat(landed).as("with fencing the stale write is refused").isFalse();
        assertThat(resource.refused()).isEqualTo(1);
      } else {
        // Without tokens the resource cannot tell: the stale write lands. This is what the
        // store's missing FENCING capability means, and it is counted, not hidden.
        assertThat(landed).isTrue();
      }
      System.out.printf(
          "%s: stale writes refused by fencing: %d; landed without fencing: %d%n",
          target.name(), resource.refused(), fencing ? 0 : 1);
      assertThat(holder.await("LOST ", Duration.ofSeconds(15)))
          .as("the woken holder is told its lease was lost")
          .isNotNull();
      holder.send("CHECK");
      assertThat(holder.await("VALID ", Duration.ofSeconds(5))).isEqualTo("VALID false");
      assertThat(next.lock(name).tryAcquire())
          .as("the new holder still holds the lock: no double grant")
          .isEmpty();
      lease.release();
    }
  }
}
