package dev.locksmith.cli.internal;

import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.LockStoreException;
import dev.locksmith.internal.EngineClient;
import dev.locksmith.tck.StoreFaults;
import dev.locksmith.tck.StoreInspector;
import dev.locksmith.tck.internal.HolderProcess;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the same scenarios on one store and records what happened: speed (uncontended and hand-off
 * latency), and behaviour (crashed holder, store pause and restart, skewed client clock, stale
 * release).
 *
 * <p>Each scenario uses its own lock names, closes its clients, and catches its own failures so
 * that one broken scenario is reported and the rest still run.
 */
public final class Comparison {

  /** How many samples each speed scenario takes. */
  public record Sizes(int uncontended, int handoffs) {}

  private final Sizes sizes;
  private final Progress progress;

  /** Scenarios of {@code sizes}, saying what they do on {@code progress} (standard error). */
  public Comparison(Sizes sizes, Progress progress) {
    this.sizes = sizes;
    this.progress = progress;
  }

  /** Runs every scenario on {@code target}. */
  public StoreReport run(StoreTarget target, boolean crossProcess) {
    StoreReport r = new StoreReport(target.name(), dev.locksmith.spi.LockUri.redact(target.uri()));
    r.startedHere = target.startedHere();
    r.processes = target.processes();
    r.facts = ServerFacts.of(target.uri());
    step(target, "capabilities", () -> capabilities(target, r), r);
    step(target, "uncontended acquire+release", () -> uncontended(target, r), r);
    step(target, "hand-off under contention", () -> handoff(target, r), r);
    if (r.capabilities.contains(Capability.SESSION_BOUND)) {
      // Holds end with the session, not at a lease time: there is no expiry to race or to skew.
      r.staleRelease = "n/a (holds end with the session; a lost session fires onLost)";
      r.clockSkew = "no effect (no lease time: holds end with the session)";
    } else {
      step(target, "stale release", () -> staleRelease(target, r), r);
      step(target, "skewed client clock", () -> clockSkew(target, r), r);
    }
    step(target, "crashed holder", () -> crash(target, r, crossProcess), r);
    Optional<StoreInspector> inspector = target.inspector();
    if (inspector.isPresent()) {
      step(target, "footprint", () -> footprint(target, inspector.get(), r), r);
      step(target, "token after eviction", () -> evictedToken(target, inspector.get(), r), r);
    } else {
      r.footprint = "n/a (a live store is not inspected)";
      r.tokenAfterEviction = "n/a (a live store is not evicted on purpose)";
    }
    if (target.control() != null) {
      // A fixture that cannot freeze its store stops it instead: the pause runs either way, and
      // its row says which kind it was.
      step(target, "store paused", () -> pause(target, r), r);
      step(target, "store restarted", () -> restart(target, r), r);
    } else {
      r.pause = "n/a (" + target.whyNoControl() + ")";
      r.restart = "n/a (" + target.whyNoControl() + ")";
    }
    return r;
  }

  private interface Scenario {
    void run() throws Exception;
  }

  private void step(StoreTarget target, String what, Scenario s, StoreReport r) {
    progress.step(String.format("  %-10s %s...", target.name(), what));
    try {
      s.run();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      // Where it failed, for the bug report: a failed step is a broken promise (exit 1).
      progress.line(String.format("  %-10s %s failed: %s", target.name(), what, e));
      StackTraceElement[] frames = e.getStackTrace();
      for (int i = 0; i < Math.min(8, frames.length); i++) {
        progress.line(String.format("  %-10s     at %s", "", frames[i]));
      }
      // The exception's type too: some (InterruptedException, TimeoutException) carry no message.
      r.broken(what + ": " + e);
    }
  }

  private static String name(String scenario) {
    return "compare:" + scenario + ":" + UUID.randomUUID().toString().substring(0, 8);
  }

  private void capabilities(StoreTarget target, StoreReport r) {
    try (LockClient c = target.open(LockOptions.defaults())) {
      r.capabilities = c.capabilities();
    }
  }

  private void uncontended(StoreTarget target, StoreReport r) {
    try (LockClient c = target.open(LockOptions.defaults())) {
      var lock = c.lock(name("uncontended"));
      for (int i = 0; i < Math.max(50, sizes.uncontended() / 5); i++) {
        lock.tryAcquire().orElseThrow().release();
      }
      long[] samples = new long[sizes.uncontended()];
      long start = System.nanoTime();
      for (int i = 0; i < samples.length; i++) {
        long t = System.nanoTime();
        Optional<Lease> lease = lock.tryAcquire();
        if (lease.isEmpty()) {
          throw new IllegalStateException("an uncontended tryAcquire found the lock taken");
        }
        lease.get().release();
        samples[i] = System.nanoTime() - t;
      }
      long total = System.nanoTime() - start;
      r.uncontended = new Percentiles(samples);
      r.throughputPerSecond = samples.length / (total / 1e9);
    }
  }

  /**
   * Hand-off latency measured as the benchmark ({@code HandoffMain}) does: warm-up hand-offs first
   * and not counted, since the first ones pay for connections, subscriptions, scripts and the JIT
   * (one such sample was Redis's 180 ms "p99" against a 1 ms p50); then, per sample, the waiter
   * blocks in {@code acquire}, the holder waits a random 5–15 ms (so polling stores are caught at a
   * random point of their backoff) and releases, and the sample runs from the release to the
   * waiter's return.
   */
  private void handoff(StoreTarget target, StoreReport r) throws Exception {
    ExecutorService waiter = Executors.newSingleThreadExecutor();
    try (LockClient a = target.open(LockOptions.defaults());
        LockClient b = target.open(LockOptions.defaults())) {
      String lockName = name("handoff");
      int warmUp = warmUpHandoffs(sizes.handoffs());
      long[] samples = new long[sizes.handoffs()];
      for (int i = 0; i < warmUp + samples.length; i++) {
        Lease held = a.lock(lockName).acquire(Duration.ofSeconds(10));
        AtomicLong acquiredAt = new AtomicLong();
        Future<?> next =
            waiter.submit(
                () -> {
                  Lease l = b.lock(lockName).acquire(Duration.ofSeconds(10));
                  acquiredAt.set(System.nanoTime());
                  l.release();
                  return null;
                });
        Thread.sleep(5 + java.util.concurrent.ThreadLocalRandom.current().nextInt(11));
        if (next.isDone()) {
          next.get();
          throw new IllegalStateException("the waiter acquired a lock that was held");
        }
        long releasedAt = System.nanoTime();
        held.release();
        next.get(15, TimeUnit.SECONDS);
        if (i >= warmUp) {
          samples[i - warmUp] = acquiredAt.get() - releasedAt;
        }
      }
      r.handoff = new Percentiles(samples);
    } finally {
      waiter.shutdownNow();
    }
  }

  /** How many hand-offs run before the counted ones: as the benchmark, up to 20. */
  public static int warmUpHandoffs(int counted) {
    return Math.min(20, counted);
  }

  private void staleRelease(StoreTarget target, StoreReport r) throws Exception {
    Duration lease = target.shortLease();
    try (LockClient a =
            target.open(LockOptions.builder().autoRenew(false).leaseTime(lease).build());
        LockClient b = target.open(LockOptions.defaults());
        LockClient c = target.open(LockOptions.defaults())) {
      String lockName = name("stale");
      Lease old = a.lock(lockName).acquire(Duration.ofSeconds(5));
      Lease next = b.lock(lockName).acquire(lease.plusSeconds(10));
      try {
        old.release();
        r.staleRelease = "accepted silently";
        r.broken("a release after expiry was accepted as if the lease were still held");
      } catch (LeaseLostException expected) {
        r.staleRelease = "refused (LeaseLostException)";
      }
      if (c.lock(lockName).tryAcquire().isPresent()) {
        r.staleRelease += "; FREED THE NEXT HOLDER'S LOCK";
        r.broken("a stale release freed the next holder's lock");
      } else {
        r.staleRelease += "; next holder kept its lock";
      }
      next.release();
    }
  }

  private void clockSkew(StoreTarget target, StoreReport r) throws Exception {
    Duration lease = target.shortLease();
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10));
    Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10));
    String lockName = name("skew");
    StringBuilder found = new StringBuilder();
    try (LockClient fast =
            target.open(
                LockOptions.builder().clock(ahead).autoRenew(false).leaseTime(lease).build());
        LockClient slow = target.open(LockOptions.builder().clock(behind).build());
        LockClient normal = target.open(LockOptions.defaults())) {
      Lease held = fast.lock(lockName).acquire(Duration.ofSeconds(5));
      if (normal.lock(lockName).tryAcquire().isPresent()) {
        found.append("a client 10 min ahead lost its lock at once; ");
        r.broken("a skewed client's lock was taken before its lease ended");
      }
      Optional<Lease> after = normal.lock(lockName).tryAcquire(lease.plusSeconds(10));
      if (after.isEmpty()) {
        found.append("a client 10 min ahead kept its lock past its lease; ");
        r.broken("a skewed client kept a lock past its lease");
      } else {
        if (slow.lock(lockName).tryAcquire().isPresent()) {
          found.append("a client 10 min behind stole a held lock; ");
          r.broken("a client with a slow clock took a held lock");
        }
        after.get().release();
      }
      try {
        held.release();
      } catch (LeaseLostException expected) {
        // It expired, as it should have.
      }
    }
    r.clockSkew = found.length() == 0 ? "no effect (expiry judged by the store)" : found.toString();
  }

  /** How many distinct names the footprint scenario locks and releases. */
  static final int FOOTPRINT_NAMES = 1000;

  /**
   * Locks and releases {@link #FOOTPRINT_NAMES} distinct names under a prefix of its own, as a
   * service locking one order at a time would, and counts what the store keeps of them once its
   * clean-up had time to run.
   */
  private void footprint(StoreTarget target, StoreInspector inspector, StoreReport r)
      throws Exception {
    String prefix = "compare-fp-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (LockClient c = target.open(LockOptions.builder().keyPrefix(prefix).build())) {
      List<Future<?>> users = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        users.add(
            pool.submit(
                () -> {
                  for (int i = first; i < FOOTPRINT_NAMES; i += threads) {
                    c.lock("order:" + i).tryAcquire().orElseThrow().release();
                  }
                  return null;
                }));
      }
      for (Future<?> f : users) {
        f.get(10, TimeUnit.MINUTES);
      }
      long deadline = System.nanoTime() + inspector.cleanupDelay().plusSeconds(1).toNanos();
      long entries = inspector.entries(prefix);
      while (entries > inspector.sharedEntries() && System.nanoTime() - deadline < 0) {
        c.lock("probe").tryAcquire().ifPresent(Lease::release); // Traffic that runs sweeps.
        Thread.sleep(50);
        entries = inspector.entries(prefix);
      }
      r.footprint =
          String.format(
              Locale.ROOT,
              "%,d entr%s (shared state allowed: %d)",
              entries,
              entries == 1 ? "y" : "ies",
              inspector.sharedEntries());
      if (entries > inspector.sharedEntries()) {
        r.broken(FOOTPRINT_NAMES + " released names left " + entries + " entries in the store");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The token of a name after the store dropped everything idle, as a Redis with {@code
   * allkeys-lru} or a memcached under memory pressure would, against the token before.
   */
  private void evictedToken(StoreTarget target, StoreInspector inspector, StoreReport r) {
    String prefix = "compare-ev-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    try (LockClient c = target.open(LockOptions.builder().keyPrefix(prefix).build())) {
      if (!c.capabilities().contains(Capability.FENCING)) {
        r.tokenAfterEviction = "n/a (no fencing tokens)";
        return;
      }
      long before = 0;
      for (int i = 0; i < 3; i++) {
        Lease lease = c.lock("x").tryAcquire().orElseThrow();
        before = lease.fencingToken();
        lease.release();
      }
      inspector.evictIdle(prefix);
      Lease lease = c.lock("x").tryAcquire().orElseThrow();
      long after = lease.fencingToken();
      lease.release();
      if (after > before) {
        r.tokenAfterEviction = "kept rising (" + ClockTokens.pair(before, after) + ")";
      } else {
        r.tokenAfterEviction = "WENT BACK (" + ClockTokens.pair(before, after) + ")";
        r.broken("a fencing token went back after the store dropped its idle state");
      }
    }
  }

  private void crash(StoreTarget target, StoreReport r, boolean crossProcess) throws Exception {
    Duration lease =
        target.shortLease().compareTo(Duration.ofSeconds(2)) < 0
            ? Duration.ofSeconds(2)
            : target.shortLease();
    String lockName = name("crash");
    try (LockClient b = target.open(LockOptions.defaults())) {
      long start;
      if (crossProcess) {
        try (HolderProcess.Started holder = HolderProcess.start(target.uri(), lockName, lease)) {
          start = System.nanoTime();
          holder.signal("KILL");
          holder.process().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
          Lease got = b.lock(lockName).acquire(lease.plusSeconds(60));
          r.crashFreedAfter = Duration.ofNanos(System.nanoTime() - start);
          got.release();
        }
        r.crash =
            String.format(
                "holder in a separate JVM, killed with SIGKILL: lock freed %.1f s later"
                    + " (lease %d s)",
                r.crashFreedAfter.toMillis() / 1000.0, lease.toSeconds());
      } else {
        LockClient a = target.open(LockOptions.builder().leaseTime(lease).build());
        a.lock(lockName).acquire(Duration.ofSeconds(5));
        start = System.nanoTime();
        ((EngineClient) a).crash();
        Lease got = b.lock(lockName).acquire(lease.plusSeconds(60));
        r.crashFreedAfter = Duration.ofNanos(System.nanoTime() - start);
        got.release();
        r.crash =
            String.format(
                "holder's client crashed inside this JVM (an in-memory store cannot be reached"
                    + " from another process): lock freed %.1f s later (lease %d s)",
                r.crashFreedAfter.toMillis() / 1000.0, lease.toSeconds());
      }
    }
  }

  /**
   * The store paused past the holder's lease (for a session-bound store, past its session): frozen
   * where the fixture can freeze it (connections stay open and go silent), else stopped (calls fail
   * at once) and started again. Either way no lock may be granted meanwhile, and no two clients may
   * hold valid leases afterwards.
   */
  private void pause(StoreTarget target, StoreReport r) throws Exception {
    StoreFaults control = java.util.Objects.requireNonNull(target.control());
    boolean freezes = target.pauseFreezes();
    Duration lease = Duration.ofSeconds(2);
    Duration outlived = target.shortLease().compareTo(lease) > 0 ? target.shortLease() : lease;
    String lockName = name("pause");
    AtomicLong toldAfterNanos = new AtomicLong(-1);
    try (LockClient a = target.open(LockOptions.builder().leaseTime(lease).build());
        LockClient b = target.open(LockOptions.defaults())) {
      Lease held = a.lock(lockName).acquire(Duration.ofSeconds(5));
      long start = System.nanoTime();
      held.onLost((l, why) -> toldAfterNanos.set(System.nanoTime() - start));
      control.pause();
      boolean acquiredDuringPause = false;
      long pausedNanos;
      try {
        Thread.sleep(outlived.toMillis() + 1500);
        try {
          acquiredDuringPause = b.lock(lockName).tryAcquire().isPresent();
        } catch (LockStoreException expected) {
          // The store is not answering: the right answer.
        }
      } finally {
        pausedNanos = System.nanoTime() - start;
        control.resume();
      }
      long resumedAt = System.nanoTime();
      Optional<Lease> after = b.lock(lockName).tryAcquire(Duration.ofSeconds(10));
      boolean toldHolder = toldAfterNanos.get() >= 0;
      boolean stillValid = held.isValid();
      if (acquiredDuringPause) {
        r.broken("a lock was granted while the store was paused");
      }
      if (after.isPresent() && stillValid) {
        r.broken("double grant: the holder's lease was valid while another client acquired");
      }
      boolean sessions = r.capabilities.contains(Capability.SESSION_BOUND);
      StringBuilder s = new StringBuilder();
      s.append(
          String.format(
              Locale.ROOT,
              "store %s for %.1f s (%s %d s)%s",
              freezes ? "frozen" : "stopped",
              pausedNanos / 1e9,
              sessions ? "session" : "lease",
              outlived.toSeconds(),
              // Said because the two pauses differ for the clients: a frozen server keeps their
              // connections open and silent, a stopped one makes their calls fail.
              freezes
                  ? ", connections open but unanswered"
                  : ": its fixture pauses by stopping the server, so calls failed rather than"
                      + " hung"));
      s.append(
          toldHolder
              ? String.format(
                  Locale.ROOT, "; holder told (onLost) %.1f s in", toldAfterNanos.get() / 1e9)
              : "; holder kept its lock through it");
      String back = freezes ? "resume" : "restart";
      s.append(
          after.isPresent() ? "; lock passed on after " + back : "; lock still held after " + back);
      r.pause = s.toString();
      after.ifPresent(Lease::release);
      try {
        held.release();
      } catch (LeaseLostException expected) {
        // Told before; releasing a lost lease says so again.
      } catch (LockStoreException stillReconnecting) {
        // A stopped store's clients may still be reconnecting; the hold ends with its lease.
      }
      if (!freezes) {
        // As after a restart: the clients close only once their reconnect attempts are over.
        long settleNanos = target.reconnectSettle().toNanos() - (System.nanoTime() - resumedAt);
        if (settleNanos > 0) {
          TimeUnit.NANOSECONDS.sleep(settleNanos);
        }
      }
    }
  }

  private void restart(StoreTarget target, StoreReport r) throws Exception {
    StoreFaults control = java.util.Objects.requireNonNull(target.control());
    String lockName = name("restart");
    boolean fencing = false;
    boolean durable = false;
    long before = 0;
    String holder;
    try (LockClient a =
            target.open(LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build());
        LockClient b = target.open(LockOptions.defaults())) {
      fencing = a.capabilities().contains(Capability.FENCING);
      durable = a.capabilities().contains(Capability.DURABLE_FENCING);
      Lease held = a.lock(lockName).acquire(Duration.ofSeconds(5));
      before = fencing ? held.fencingToken() : 0;
      control.kill();
      Thread.sleep(300);
      control.restart();
      long restartedAt = System.nanoTime();
      Optional<Lease> other = Optional.empty();
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (System.nanoTime() < deadline) {
        try {
          other = b.lock(lockName).tryAcquire();
          break;
        } catch (LockStoreException notYet) {
          Thread.sleep(200);
        }
      }
      boolean valid = held.isValid();
      if (other.isPresent() && valid) {
        // The holder may learn of the loss only at its next renewal; give it that long.
        Thread.sleep(2000);
        valid = held.isValid();
        if (valid) {
          r.broken("after a restart another client acquired while the holder's lease stayed valid");
        }
      }
      holder =
          other.isPresent()
              ? "lock lost in the restart (holder " + (valid ? "NOT told" : "told") + ")"
              : "lock kept across the restart";
      other.ifPresent(Lease::release);
      try {
        held.release();
      } catch (LeaseLostException expected) {
        // Lost in the restart: already reported.
      }
      if (fencing) {
        Lease again = b.lock(lockName).acquire(Duration.ofSeconds(10));
        long after = again.fencingToken();
        again.release();
        if (after <= before && durable) {
          r.broken(
              "the fencing token went back after a restart (" + before + " then " + after + ")");
          holder += "; token went BACK (" + ClockTokens.pair(before, after) + ")";
        } else if (after <= before) {
          holder +=
              "; token restarted ("
                  + ClockTokens.pair(before, after)
                  + "; DURABLE_FENCING not declared)";
        } else {
          holder += "; token kept increasing (" + ClockTokens.pair(before, after) + ")";
        }
      } else {
        holder += "; no fencing token";
      }
      // Close the clients only once their reconnect attempts from the outage are over (see
      // StoreTarget.reconnectSettle), else a client shuts down under its own pending attempts.
      long settleNanos = target.reconnectSettle().toNanos() - (System.nanoTime() - restartedAt);
      if (settleNanos > 0) {
        TimeUnit.NANOSECONDS.sleep(settleNanos);
      }
    }
    r.restart = holder;
  }
}
