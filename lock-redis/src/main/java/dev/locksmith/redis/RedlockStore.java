package dev.locksmith.redis;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.redis.internal.KeyLayout;
import dev.locksmith.redis.internal.LockOperations;
import dev.locksmith.redis.internal.RedlockNode;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreTiming;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Redlock: an exclusive lock over N independent Redis masters, held when a majority (N/2+1) granted
 * it within its validity.
 *
 * <p>Each master runs the same owner-checked script as {@link RedisLockStore}, in parallel, each
 * bounded by a per-node timeout far below the lease. Each master is asked for the lease plus the
 * allowed clock drift ({@code lease × driftFactor + 2 ms}), and the acquire counts only if it
 * finished within the lease, so the engine's validity (lease from before the request) ends before
 * any master may expire the lock: validity = lease − elapsed − drift, as the algorithm asks. A
 * failed attempt releases on every master; the engine's jittered backoff is the random retry delay.
 * A master that restarted without persistence sits out one {@code restartDelay} (see {@code
 * RedlockNode}). Like the single-node store, a master keeps nothing per lock name once the lock is
 * free, only one token counter per key prefix; a master whose {@code maxmemory-policy} may evict
 * lock keys is named in a warning when the store first reaches it.
 *
 * <p>What it does not promise, and so does not declare: fencing tokens (each master counts on its
 * own, so no token strictly increases across holders), reentrancy, read-write locks and release
 * wake-ups. Like every lease lock without fencing, it is unsafe if a holder pauses (GC, SIGSTOP)
 * past its lease, or if a master's clock jumps. When fewer than a quorum of masters answer, the
 * operation fails with {@link LockStoreException}.
 */
public final class RedlockStore implements LockStore {

  /** The per-node command timeout when the URI sets none. */
  public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(200);

  /** The clock drift allowed per unit of lease when the URI sets none. */
  public static final double DEFAULT_DRIFT_FACTOR = 0.01;

  private static final AtomicInteger STORES = new AtomicInteger();

  /** How long opening waits for the first connections (TCP, handshake, credentials). */
  private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Redlock's settings.
   *
   * @param nodeTimeout bound of one command on one master; leases must be at least twice as long
   * @param driftFactor allowed clock drift per unit of lease, in [0, 0.5)
   * @param restartDelay how long a master restarted without persistence sits out: at least the
   *     longest lease any client gives
   */
  public record Settings(Duration nodeTimeout, double driftFactor, Duration restartDelay) {
    /** Checks the settings. */
    public Settings {
      Objects.requireNonNull(nodeTimeout, "nodeTimeout must not be null");
      Objects.requireNonNull(restartDelay, "restartDelay must not be null");
      if (nodeTimeout.isZero() || nodeTimeout.isNegative()) {
        throw new IllegalArgumentException("nodeTimeout must be positive, was " + nodeTimeout);
      }
      if (!(driftFactor >= 0 && driftFactor < 0.5)) {
        throw new IllegalArgumentException(
            "driftFactor must be at least 0 and below 0.5, was " + driftFactor);
      }
      if (restartDelay.isNegative()) {
        throw new IllegalArgumentException(
            "restartDelay must not be negative, was " + restartDelay);
      }
    }
  }

  private final List<RedlockNode> nodes;
  private final int quorum;
  private final Settings settings;
  private final ExecutorService executor;
  private final String description;
  private final String keyPrefix;

  private RedlockStore(List<RedlockNode> nodes, Settings settings, String keyPrefix) {
    this.nodes = nodes;
    this.keyPrefix = keyPrefix;
    this.quorum = nodes.size() / 2 + 1;
    this.settings = settings;
    int id = STORES.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "locksmith-redlock-" + id + "-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    StringBuilder d = new StringBuilder("redlock://");
    for (int i = 0; i < nodes.size(); i++) {
      d.append(i > 0 ? "," : "").append(nodes.get(i).address());
    }
    this.description = d.toString();
  }

  /**
   * Connects to the masters at {@code nodes}; at least a quorum must answer now, the others are
   * connected when they come back.
   *
   * @throws IllegalArgumentException if there are no nodes or the prefix has a brace
   * @throws LockStoreException if fewer than a quorum of masters can be reached
   */
  public static RedlockStore connect(List<RedisURI> nodes, String keyPrefix, Settings settings) {
    Objects.requireNonNull(nodes, "nodes must not be null");
    Objects.requireNonNull(settings, "settings must not be null");
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("Redlock needs at least one master (three or more)");
    }
    KeyLayout layout = new KeyLayout(keyPrefix);
    List<RedlockNode> list = new ArrayList<>();
    for (RedisURI uri : nodes) {
      list.add(new RedlockNode(uri, layout, settings.restartDelay()));
    }
    RedlockStore store = new RedlockStore(List.copyOf(list), settings, layout.prefix());
    Votes<LockOperations> connected = store.ask(RedlockNode::operations, n -> n, OPEN_TIMEOUT);
    if (connected.answers() < store.quorum) {
      store.close();
      throw connected.failure("connect", store);
    }
    return store;
  }

  @Override
  public String keyPrefix() {
    return keyPrefix;
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Set<Capability> promises() {
    return Set.of();
  }

  @Override
  public StoreTiming timing() {
    return new StoreTiming(settings.nodeTimeout().multipliedBy(2), Duration.ofMillis(1));
  }

  private long driftMillis(long leaseMillis) {
    return (long) Math.ceil(leaseMillis * settings.driftFactor()) + 2;
  }

  /**
   * The holder's remaining lease from a master's remaining time to live, which also covers the
   * drift margin added on top of the lease. Subtracting the margin of the remaining time itself can
   * only under-estimate (the engine then retries early and gets a new hint), never promise a wait
   * longer than the holder's lease.
   */
  private @Nullable Duration holderLeaseLeft(@Nullable Duration nodeTtl) {
    if (nodeTtl == null) {
      return null;
    }
    long ttl = nodeTtl.toMillis();
    return Duration.ofMillis(Math.max(0, ttl - driftMillis(ttl)));
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    requireExclusive(key);
    long leaseMillis = RedisLockStore.millis(leaseTime);
    long nodeLease = leaseMillis + driftMillis(leaseMillis);
    long start = System.nanoTime();
    Votes<Acquisition> votes = askVoters(ops -> ops.acquire(key, owner, nodeLease));
    long elapsed = System.nanoTime() - start;
    int granted = 0;
    Duration retryAfter = null;
    for (Acquisition a : votes.values) {
      if (a == null) {
        continue;
      }
      if (a.isAcquired()) {
        granted++;
      } else if (a.retryAfter() != null
          && (retryAfter == null || a.retryAfter().compareTo(retryAfter) < 0)) {
        retryAfter = a.retryAfter();
      }
    }
    if (granted >= quorum && elapsed < leaseTime.toNanos()) {
      return Acquisition.acquired(0, 1);
    }
    releaseEverywhere(key, owner);
    if (votes.answers() < quorum) {
      throw votes.failure("acquire of lock '" + key + "'", this);
    }
    return Acquisition.busy(holderLeaseLeft(retryAfter));
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    requireExclusive(key);
    long leaseMillis = RedisLockStore.millis(leaseTime);
    long nodeLease = leaseMillis + driftMillis(leaseMillis);
    long start = System.nanoTime();
    Votes<Boolean> votes = askVoters(ops -> ops.extend(key, owner, nodeLease));
    long elapsed = System.nanoTime() - start;
    long extended = votes.values.stream().filter(Boolean.TRUE::equals).count();
    if (extended >= quorum && elapsed < leaseTime.toNanos()) {
      return true;
    }
    if (votes.answers() < quorum) {
      throw votes.failure("extend of lock '" + key + "'", this);
    }
    return false;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    requireExclusive(key);
    Votes<ReleaseOutcome> votes = askEveryMaster(ops -> ops.release(key, owner));
    long released = votes.values.stream().filter(o -> o == ReleaseOutcome.RELEASED).count();
    long notHeld = votes.values.stream().filter(o -> o == ReleaseOutcome.NOT_HELD).count();
    if (released >= quorum) {
      return ReleaseOutcome.RELEASED;
    }
    if (notHeld > nodes.size() - quorum) {
      return ReleaseOutcome.NOT_HELD;
    }
    if (votes.answers() < quorum) {
      throw votes.failure("release of lock '" + key + "'", this);
    }
    // Some masters released, the others had already expired it: the lock is free either way.
    return released > 0 ? ReleaseOutcome.RELEASED : ReleaseOutcome.NOT_HELD;
  }

  @Override
  public LockState read(LockKey key) {
    requireExclusive(key);
    Votes<LockState> votes = askEveryMaster(ops -> ops.read(key));
    for (LockState s : votes.values) {
      if (s == null || !s.locked() || s.owner() == null) {
        continue;
      }
      int same = 0;
      Duration remaining = s.remaining();
      for (LockState t : votes.values) {
        if (t != null && s.owner().equals(t.owner())) {
          same++;
          if (t.remaining() != null
              && remaining != null
              && t.remaining().compareTo(remaining) < 0) {
            remaining = t.remaining();
          }
        }
      }
      if (same >= quorum) {
        return LockState.heldBy(s.owner(), s.holds(), remaining);
      }
    }
    if (votes.answers() < quorum) {
      throw votes.failure("read of lock '" + key + "'", this);
    }
    return LockState.FREE;
  }

  private void releaseEverywhere(LockKey key, String owner) {
    // Owner-checked, so it only removes the partial holds of this failed attempt.
    askEveryMaster(ops -> ops.release(key, owner));
  }

  private static void requireExclusive(LockKey key) {
    if (key.mode() != LockMode.EXCLUSIVE) {
      throw new UnsupportedOperationException("Redlock has no read-write locks");
    }
  }

  /** The answers of every master to one call, null where a master failed or was too slow. */
  private static final class Votes<T> {
    final List<@Nullable T> values = new ArrayList<>();
    @Nullable Throwable firstFailure;

    int answers() {
      return (int) values.stream().filter(Objects::nonNull).count();
    }

    LockStoreException failure(String what, RedlockStore store) {
      String message =
          what
              + " failed on "
              + store.description
              + ": only "
              + answers()
              + " of "
              + store.nodes.size()
              + " masters answered and a quorum is "
              + store.quorum
              + (firstFailure != null
                  ? " (" + dev.locksmith.redis.internal.RedisFailure.reason(firstFailure, 0) + ")"
                  : "");
      return firstFailure != null
          ? new LockStoreException(message, firstFailure)
          : new LockStoreException(message);
    }
  }

  /** Asks every master that may vote (acquire, extend): one in its restart delay fails. */
  private <T> Votes<T> askVoters(Function<LockOperations, T> call) {
    return ask(RedlockNode::votingOperations, call, commandWait());
  }

  /** Asks every master, also one in its restart delay (release, read). */
  private <T> Votes<T> askEveryMaster(Function<LockOperations, T> call) {
    return ask(RedlockNode::operations, call, commandWait());
  }

  private Duration commandWait() {
    // Each command is bounded by the node timeout; connecting to a node that just came back may
    // take a little longer, but a master that slow does not vote.
    return settings.nodeTimeout().multipliedBy(2).plusMillis(50);
  }

  private <T> Votes<T> ask(
      Function<RedlockNode, LockOperations> reach,
      Function<LockOperations, T> call,
      Duration wait) {
    List<Future<T>> futures = new ArrayList<>(nodes.size());
    for (RedlockNode node : nodes) {
      futures.add(executor.submit(() -> call.apply(reach.apply(node))));
    }
    long deadline = System.nanoTime() + wait.toNanos();
    Votes<T> votes = new Votes<>();
    boolean interrupted = false;
    for (Future<T> f : futures) {
      T value = null;
      try {
        value = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        if (votes.firstFailure == null) {
          votes.firstFailure = e.getCause();
        }
      } catch (TimeoutException e) {
        f.cancel(true);
        if (votes.firstFailure == null) {
          votes.firstFailure = e;
        }
      } catch (InterruptedException e) {
        interrupted = true;
        f.cancel(true);
        if (votes.firstFailure == null) {
          votes.firstFailure = e;
        }
      }
      votes.values.add(value);
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return votes;
  }

  @Override
  public void close() {
    executor.shutdownNow();
    for (RedlockNode node : nodes) {
      node.close();
    }
  }

  @Override
  public String toString() {
    return "RedlockStore{" + description + ", quorum=" + quorum + "}";
  }
}
