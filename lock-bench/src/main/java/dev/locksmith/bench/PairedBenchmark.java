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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Two targets measured in one fork, taking turns by iteration (first, second, second, first, …), so
 * that their ratio is read off the same JVM and the same minutes of the machine.
 *
 * <p>{@link AcquireReleaseBenchmark} measures each target in forks of its own; on a host where a
 * fork keeps a fast or a slow speed for its whole life (on one virtual machine, a target's fork ran
 * at a third of its neighbours'), the ratio of two forks measures the host. Here a slow spell falls
 * on both sides. The pair is {@code -p pair=redis/locksmith:redis/raw-fenced}; measurement
 * iteration {@code i} (from 0) runs the first target when {@code i % 4} is 0 or 3, the second
 * otherwise, so a steady drift of the machine favours neither.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PairedBenchmark {

  /** Two target ids, see {@link Targets#ALL}, separated by a colon. */
  @Param({"redis/locksmith:redis/raw-fenced"})
  public String pair;

  private LockTarget first;
  private LockTarget second;
  private volatile LockTarget subject;
  private int iteration;
  private boolean measuring;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicInteger threads = new AtomicInteger();

  /**
   * Whether measurement iteration {@code i} (from 0) runs the first target of the pair; {@link
   * ReportMain} splits the iterations by the same rule.
   */
  static boolean firstRuns(int i) {
    int phase = i % 4;
    return phase == 0 || phase == 3;
  }

  /** Opens both targets; before a run of several threads, runs each on one thread for a while. */
  @Setup(Level.Trial)
  public void open(BenchmarkParams params) throws Exception {
    openPair();
    if (params.getThreads() > 1) {
      // As AcquireReleaseBenchmark#open: the JIT compiles on a free core before 16 threads start.
      AcquireReleaseBenchmark.warmUpOnOneThread(first, "paired-" + run + "-one-thread-warm-up");
      AcquireReleaseBenchmark.warmUpOnOneThread(second, "paired-" + run + "-one-thread-warm-up");
    }
  }

  /** Opens the two targets {@link #pair} names. */
  void openPair() throws Exception {
    int colon = pair.indexOf(':');
    if (colon <= 0 || colon == pair.length() - 1 || pair.indexOf(':', colon + 1) >= 0) {
      throw new IllegalArgumentException(
          "pair must be two target ids separated by ':', got '" + pair + "'");
    }
    first = Targets.open(pair.substring(0, colon));
    try {
      second = Targets.open(pair.substring(colon + 1));
    } catch (Exception e) {
      first.close();
      throw e;
    }
  }

  /** The target the current iteration runs. */
  LockTarget subject() {
    return subject;
  }

  /** Picks the target of the next iteration. */
  @Setup(Level.Iteration)
  public void turn(IterationParams params) {
    if (params.getType() == IterationType.MEASUREMENT && !measuring) {
      measuring = true;
      iteration = 0;
    }
    subject = firstRuns(iteration) ? first : second;
    iteration++;
  }

  /** Closes both targets. */
  @TearDown(Level.Trial)
  public void close() throws Exception {
    try {
      first.close();
    } finally {
      second.close();
    }
  }

  /** The lock name of one benchmark thread, unique in the run so that threads never contend. */
  @State(Scope.Thread)
  public static class Name {
    String name;

    /** Picks this thread's name. */
    @Setup(Level.Trial)
    public void pick(PairedBenchmark bench) {
      name = "paired-" + bench.run + "-" + bench.threads.incrementAndGet();
    }
  }

  /** One thread acquiring and releasing its lock with this iteration's target. */
  @Benchmark
  @Threads(1)
  @Warmup(iterations = 6, time = 2)
  @Measurement(iterations = 8, time = 1)
  public void oneThread(Name n) throws Exception {
    subject.acquire(n.name).release();
  }

  /** Sixteen threads, each acquiring and releasing its own lock with this iteration's target. */
  @Benchmark
  @Threads(16)
  @Warmup(iterations = 8, time = 2)
  @Measurement(iterations = 8, time = 1)
  public void sixteenThreads(Name n) throws Exception {
    subject.acquire(n.name).release();
  }
}
