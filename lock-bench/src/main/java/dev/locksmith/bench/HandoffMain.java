package dev.locksmith.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.locksmith.bench.internal.Targets;
import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures hand-off latency, which JMH cannot: the time from the moment a holder starts its release
 * to the moment a waiter that was already blocked in {@code acquire} returns with the lock.
 *
 * <p>Two instances of a target (two clients, standing for two processes) share one lock name. For
 * each sample the holder (the main thread) holds the lock while the waiter (its own thread) calls
 * {@code acquire}; after a random settle time of 5–15 ms, so the waiter is parked and polling
 * targets are caught at a random point of their backoff, the holder stamps {@code t0} and releases;
 * the waiter stamps {@code t1} when {@code acquire} returns, then releases. Each repeat uses a
 * fresh pair of clients and reports p50 and p99 of its samples.
 *
 * <p>Every target first runs one unrecorded warm-up round, and then the repeats take turns across
 * the targets, forwards in odd repeats and backwards in even ones: the targets share the JVM's
 * Netty, drivers and JIT, and the machine drifts, so a target measured whole before the next pays
 * for warming what the later ones reuse (Redis, one JVM, all three repeats of one target before the
 * other: raw first, 0.91/0.76/0.73 ms then Locksmith 0.55/0.52/0.53 ms; measured again in the same
 * JVM, raw 0.52/0.54/0.53 ms and Locksmith 0.39/0.41/0.41 ms).
 *
 * <p>Usage: {@code HandoffMain --targets a,b --samples 200 --repeats 3 --out handoff.json}. A
 * target that fails is recorded with its error and the others still run.
 */
public final class HandoffMain {

  /**
   * How long each client of a target first takes and releases a lock of its own, once per target:
   * the 20 warm-up hand-offs alone leave the engine's paths to the interpreter and the first JIT
   * tier, so a library with more code measured slower than it runs in a service that has been up
   * for a while (Redis, 50 samples after the 20 hand-offs: Locksmith p50 0.62–0.95 ms, raw
   * 0.48–0.58; after 2 s of this warm-up, Locksmith 0.39–0.45 ms, raw 0.39–0.46).
   */
  private static final Duration WARM_UP = Duration.ofSeconds(2);

  /** How many hand-offs the unrecorded warm-up round of each target makes. */
  private static final int WARM_UP_SAMPLES = 50;

  private HandoffMain() {}

  /** Runs the measurement; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = Args.parse(args);
    List<String> targets = Arrays.asList(opts.getOrDefault("targets", "").split(","));
    int samples = Integer.parseInt(opts.getOrDefault("samples", "200"));
    int repeats = Integer.parseInt(opts.getOrDefault("repeats", "3"));
    File out = new File(Args.require(opts, "out"));
    if (samples < 1 || repeats < 1) {
      throw new IllegalArgumentException(
          "--samples and --repeats must be at least 1, got " + samples + " and " + repeats);
    }
    Map<String, Map<String, Object>> results = new LinkedHashMap<>();
    for (String id : targets) {
      if (!id.isBlank() && !results.containsKey(id)) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("target", id);
        result.put("samples", samples);
        result.put("repeats", new ArrayList<Map<String, Object>>());
        results.put(id, result);
      }
    }
    List<String> ids = new ArrayList<>(results.keySet());
    for (String id : ids) {
      if (attempt(id, results.get(id), () -> measure(id, WARM_UP_SAMPLES, WARM_UP)).isPresent()) {
        System.out.printf("handoff %-22s warmed up%n", id);
      }
    }
    for (int r = 0; r < repeats; r++) {
      List<String> order = new ArrayList<>(ids);
      if (r % 2 == 1) {
        Collections.reverse(order);
      }
      for (String id : order) {
        Map<String, Object> result = results.get(id);
        if (result.containsKey("error")) {
          continue; // it failed before: its error stands
        }
        Optional<long[]> measured = attempt(id, result, () -> measure(id, samples, Duration.ZERO));
        if (measured.isEmpty()) {
          continue;
        }
        long[] nanos = measured.get();
        Arrays.sort(nanos);
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("p50Millis", percentile(nanos, 0.50) / 1e6);
        run.put("p99Millis", percentile(nanos, 0.99) / 1e6);
        run.put("maxMillis", nanos[nanos.length - 1] / 1e6);
        repeatsOf(result).add(run);
        System.out.printf(
            "handoff %-22s repeat %d: p50 %.3f ms, p99 %.3f ms%n",
            id, r + 1, run.get("p50Millis"), run.get("p99Millis"));
      }
    }
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out, new ArrayList<>(results.values()));
  }

  /** A measurement of one target; a failure is recorded and the other targets still run. */
  @FunctionalInterface
  private interface Measurement {
    long[] run() throws Exception;
  }

  /** Runs {@code m}; if it fails, records the error in {@code result} and returns empty. */
  private static Optional<long[]> attempt(String id, Map<String, Object> result, Measurement m) {
    try {
      return Optional.of(m.run());
    } catch (Exception | AssertionError e) {
      System.out.println("handoff " + id + " FAILED: " + e);
      e.printStackTrace();
      result.put("error", String.valueOf(e));
      return Optional.empty();
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> repeatsOf(Map<String, Object> result) {
    return (List<Map<String, Object>>) result.get("repeats");
  }

  /** Takes and releases {@code name} on {@code target} for {@code time}, with no one waiting. */
  private static void warmUp(LockTarget target, String name, Duration time) throws Exception {
    long deadline = System.nanoTime() + time.toNanos();
    while (System.nanoTime() - deadline < 0) {
      target.acquire(name).release();
    }
  }

  /** The value at quantile {@code q} of sorted {@code values} (nearest rank). */
  static long percentile(long[] sorted, double q) {
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static long[] measure(String id, int samples, Duration warmUp) throws Exception {
    String name = "handoff-" + UUID.randomUUID().toString().substring(0, 8);
    long[] result = new long[samples];
    ExecutorService waiterThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "waiter"));
    try (LockTarget holder = Targets.open(id);
        LockTarget waiter = Targets.open(id)) {
      if (!holder.blocking()) {
        throw new IllegalArgumentException(id + " has no blocking acquire; hand-off is undefined");
      }
      warmUp(holder, name + "-holder", warmUp);
      warmUp(waiter, name + "-waiter", warmUp);
      // Warm both paths up (connections, scripts, the wait path) before counting.
      for (int i = 0; i < Math.min(20, samples) + samples; i++) {
        LockTarget.Held held = holder.acquire(name);
        AtomicLong acquiredAt = new AtomicLong();
        Future<?> waiting =
            waiterThread.submit(
                () -> {
                  LockTarget.Held mine = waiter.acquire(name);
                  acquiredAt.set(System.nanoTime());
                  mine.release();
                  return null;
                });
        Thread.sleep(5 + ThreadLocalRandom.current().nextInt(11));
        if (waiting.isDone()) {
          waiting.get(); // the waiter got in while the holder held it: fail loudly
          throw new AssertionError(id + ": the waiter acquired a lock that was held");
        }
        long releasedAt = System.nanoTime();
        held.release();
        waiting.get(LockTarget.MAX_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        int sample = i - Math.min(20, samples);
        if (sample >= 0) {
          result[sample] = acquiredAt.get() - releasedAt;
        }
      }
    } finally {
      waiterThread.shutdownNow();
    }
    return result;
  }
}
