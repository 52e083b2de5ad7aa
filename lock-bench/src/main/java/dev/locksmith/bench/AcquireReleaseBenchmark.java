package dev.locksmith.bench;

import dev.locksmith.bench.internal.Targets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

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

  private LockTarget subject;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicInteger threads = new AtomicInteger();

  /** Opens the target. */
  @Setup(Level.Trial)
  public void open() throws Exception {
    subject = Targets.open(target);
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
  public void oneThread(Name n) throws Exception {
    subject.acquire(n.name).release();
  }

  /** Sixteen threads, each acquiring and releasing its own lock. */
  @Benchmark
  @Threads(16)
  public void sixteenThreads(Name n) throws Exception {
    subject.acquire(n.name).release();
  }
}
