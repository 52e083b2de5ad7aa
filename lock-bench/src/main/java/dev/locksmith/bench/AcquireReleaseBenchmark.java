package dev.locksmith.bench;

import dev.locksmith.bench.internal.Targets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Uncontended acquire+release throughput of one {@link LockTarget}: one thread, and sixteen threads
 * each on its own lock name (so the numbers measure the client and the store's round trips, not
 * waiting). The target is chosen with {@code -p target=redis/locksmith,redis/raw,…}; every target
 * of a store runs against the same server in the same run, so their ratio is meaningful.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AcquireReleaseBenchmark {

  /** The target id, see {@link Targets#ALL}. */
  @Param({"redis/locksmith"})
  public String target;

  private static final int ONE_THREAD_WARM_UP_SECONDS = 5;

  private LockTarget subject;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicInteger threads = new AtomicInteger();

  /**
   * Opens the target; before a run of several threads, runs it on one thread for {@value
   * #ONE_THREAD_WARM_UP_SECONDS} s. Sixteen threads on two cores leave the JIT compiler threads
   * little CPU, so the warm-up iterations of a short run end with the code still being compiled: at
   * 16 threads H2's Locksmith target rose from 30,000 to 111,000 ops/s over its first 22 s (the raw
   * one over 8 s), and with the C1 compiler only it was flat from the first second. One thread
   * leaves the compiler a core, and reaches its steady rate within 2 s.
   */
  @Setup(Level.Trial)
  public void open(BenchmarkParams params) throws Exception {
    subject = Targets.open(target);
    if (params.getThreads() > 1) {
      warmUpOnOneThread(subject, "bench-" + run + "-one-thread-warm-up");
    }
  }

  /** Acquires and releases {@code name} with {@code target} on this thread for a while. */
  static void warmUpOnOneThread(LockTarget target, String name) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(ONE_THREAD_WARM_UP_SECONDS);
    while (System.nanoTime() < end) {
      target.acquire(name).release();
    }
  }

  /** Closes the target. */
  @TearDown(Level.Trial)
  public void close() throws Exception {
    subject.close();
  }

  /** The lock name of one benchmark thread, unique in the run so that threads never contend. */
  @State(Scope.Thread)
  public static class Name {
    String name;

    /** Picks this thread's name. */
    @Setup(Level.Trial)
    public void pick(AcquireReleaseBenchmark bench) {
      name = "bench-" + bench.run + "-" + bench.threads.incrementAndGet();
    }
  }

  /** One thread acquiring and releasing its lock. */
  @Benchmark
  @Threads(1)
  @Warmup(iterations = 3, time = 3)
  @Measurement(iterations = 4, time = 1)
  public void oneThread(Name n) throws Exception {
    subject.acquire(n.name).release();
  }

  /**
   * Sixteen threads, each acquiring and releasing its own lock. Their warm-up is longer than one
   * thread's: even after the one-thread warm-up of {@link #open}, H2's Locksmith target still rose
   * from 48,000 to 110,000 ops/s over the first 10 s of sixteen threads (the paths only several
   * threads take, such as waiting for a pooled connection, compile then).
   */
  @Benchmark
  @Threads(16)
  @Warmup(iterations = 5, time = 3)
  @Measurement(iterations = 4, time = 1)
  public void sixteenThreads(Name n) throws Exception {
    subject.acquire(n.name).release();
  }
}
