package dev.locksmith.examples;

import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The story every example tells, whatever the store: a holder locks {@value #LOCK_NAME} and writes
 * with its fencing token; it loses the lease while it is stalled; its {@code onLost} listener is
 * told; a rival (another client, standing for another process) takes the lock and writes with a
 * higher token; the holder's late write is refused by the {@link FencedStorage}.
 *
 * <p>How the holder loses its lease depends on the store ({@link LeaseLoss}): time-bound stores let
 * it expire without renewal; ZooKeeper ends its session.
 */
public final class FencingDemo {

  /** The name of the lock every example takes. */
  public static final String LOCK_NAME = "orders:42";

  private static final Duration WAIT = Duration.ofSeconds(15);

  /** How the holder's lease is lost in a given store. */
  @FunctionalInterface
  public interface LeaseLoss {
    /** Makes {@code lease} be lost; may return before the store has noticed. */
    void lose(Lease lease) throws Exception;
  }

  /**
   * What happened, for the reader and for the examples' tests.
   *
   * @param holderToken the fencing token of the first holder
   * @param lostReason the message of the exception the holder's {@code onLost} listener received
   * @param rivalToken the fencing token of the rival that took the lock after the loss
   * @param staleWriteRefused whether the storage refused the holder's late write
   * @param releaseAfterLossThrew whether releasing the lost lease threw {@link LeaseLostException}
   * @param storedValue the storage's value at the end
   */
  public record Report(
      long holderToken,
      String lostReason,
      long rivalToken,
      boolean staleWriteRefused,
      boolean releaseAfterLossThrew,
      String storedValue) {}

  private FencingDemo() {}

  /**
   * Runs the story with {@code holder} and {@code rival}, two clients of one store, printing each
   * step to {@code out}.
   *
   * @throws TimeoutException if the lost lease is not reported within 15 seconds
   */
  public static Report run(
      LockClient holder, LockClient rival, LeaseLoss loss, FencedStorage storage, PrintStream out)
      throws Exception {
    Lease lease = holder.lock(LOCK_NAME).acquire(WAIT);
    CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
    // A listener must be quick and must not block: it is told on the engine's thread. Real code
    // sets a flag or interrupts the worker, which then stops before its next write.
    lease.onLost(
        (l, reason) -> {
          out.println("holder: lease lost (" + reason.getMessage() + "); stopping work");
          lost.complete(reason);
        });
    long holderToken = lease.fencingToken();
    storage.write("draft written by the holder", holderToken);
    out.println("holder: acquired " + LOCK_NAME + " with token " + holderToken + ", wrote a draft");

    loss.lose(lease);
    LeaseLostException reason = lost.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    long rivalToken;
    try (Lease rivalLease = rival.lock(LOCK_NAME).acquire(WAIT)) {
      rivalToken = rivalLease.fencingToken();
      storage.write("final version written by the rival", rivalToken);
      out.println("rival: acquired " + LOCK_NAME + " with token " + rivalToken + ", wrote");
    }

    // The stalled holder wakes up and, not having checked its flag, writes anyway.
    boolean refused = false;
    try {
      storage.write("late write by the stalled holder", holderToken);
    } catch (FencedStorage.StaleTokenException e) {
      refused = true;
      out.println("storage: refused the holder's late write: " + e.getMessage());
    }

    boolean releaseThrew = false;
    try {
      lease.release();
    } catch (LeaseLostException e) {
      // The holder learns here at the latest that its critical section was not protected.
      releaseThrew = true;
      out.println("holder: release says " + e.getMessage());
    }
    out.println("storage holds: " + storage.value());
    return new Report(
        holderToken, reason.getMessage(), rivalToken, refused, releaseThrew, storage.value());
  }

  /**
   * Runs the story on a store whose locks expire (mem, Redis, memcached, JDBC), opened from {@code
   * uri} twice: the holder holds for one second with auto-renew off, stands for a process that
   * stalls past its lease, and the store expires its lock.
   */
  public static Report runWithExpiry(String uri, PrintStream out) throws Exception {
    // Auto-renew (the default) would keep a live holder's lease; turned off, a stall outlives it.
    LockOptions stalling =
        LockOptions.builder().leaseTime(Duration.ofSeconds(1)).autoRenew(false).build();
    try (LockClient holder = LockClient.open(uri, stalling);
        LockClient rival = LockClient.open(uri)) {
      // Nothing to do to lose the lease but wait: the store expires the lock by itself, and the
      // engine tells the listener once the lease's time is up.
      return run(holder, rival, lease -> {}, new FencedStorage(), out);
    }
  }
}
