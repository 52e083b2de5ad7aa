package dev.locksmith.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.locksmith.Capability;
import dev.locksmith.Lease;
import dev.locksmith.LeaseLostException;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.bench.internal.Targets;
import dev.locksmith.tck.HistoryChecker;
import dev.locksmith.tck.LockHistory;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scale runs that JMH does not do.
 *
 * <ol>
 *   <li><b>Many leases</b>: one client holds {@code --leases} auto-renewed leases for {@code
 *       --hold-seconds} on each of {@code --lease-stores}. Passes when no lease is lost (no {@code
 *       onLost}, every lease still valid, and a second client is refused every name) and at most
 *       two threads named {@code locksmith-renewer-*} were ever alive. Reports heap growth.
 *   <li><b>Contention</b>: {@code --threads} threads over 8 clients take random names out of {@code
 *       --names} for {@code --contention-seconds} on each of {@code --contention-stores}, recording
 *       every hold in the test kit's {@link LockHistory}; passes when {@link HistoryChecker} finds
 *       no violation.
 * </ol>
 *
 * <p>Writes its findings as JSON to {@code --out}. A store that fails is recorded with its error.
 */
public final class ScaleMain {

  private static final String RENEWER_PREFIX = "locksmith-renewer-";

  private ScaleMain() {}

  /** Runs the scale checks; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = Args.parse(args);
    int leases = Integer.parseInt(opts.getOrDefault("leases", "10000"));
    int holdSeconds = Integer.parseInt(opts.getOrDefault("hold-seconds", "60"));
    Duration leaseTime =
        Duration.ofSeconds(Long.parseLong(opts.getOrDefault("lease-seconds", "10")));
    int threads = Integer.parseInt(opts.getOrDefault("threads", "64"));
    int names = Integer.parseInt(opts.getOrDefault("names", "1000"));
    int contentionSeconds = Integer.parseInt(opts.getOrDefault("contention-seconds", "60"));
    List<String> leaseStores = list(opts.getOrDefault("lease-stores", "redis,h2"));
    List<String> contentionStores = list(opts.getOrDefault("contention-stores", "redis,h2"));
    File out = new File(Args.require(opts, "out"));

    List<Map<String, Object>> results = new ArrayList<>();
    for (String store : leaseStores) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("kind", "leases");
      r.put("store", store);
      r.put("leases", leases);
      r.put("holdSeconds", holdSeconds);
      r.put("leaseSeconds", leaseTime.toSeconds());
      try {
        manyLeases(store, leases, holdSeconds, leaseTime, r);
      } catch (Exception | AssertionError e) {
        e.printStackTrace();
        r.put("error", String.valueOf(e));
      }
      System.out.println("scale " + r);
      results.add(r);
    }
    for (String store : contentionStores) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("kind", "contention");
      r.put("store", store);
      r.put("threads", threads);
      r.put("names", names);
      r.put("seconds", contentionSeconds);
      try {
        contention(store, threads, names, contentionSeconds, r);
      } catch (Exception | AssertionError e) {
        e.printStackTrace();
        r.put("error", String.valueOf(e));
      }
      System.out.println("scale " + r);
      results.add(r);
    }
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out, results);
  }

  private static List<String> list(String csv) {
    return Arrays.stream(csv.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static long usedHeapAfterGc(MemoryMXBean memory) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  private static int renewerThreads() {
    return (int)
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && t.getName().startsWith(RENEWER_PREFIX))
            .count();
  }

  private static void manyLeases(
      String store, int count, int holdSeconds, Duration leaseTime, Map<String, Object> r)
      throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    String uri = Targets.locksmithUri(store);
    LockOptions options = LockOptions.builder().leaseTime(leaseTime).autoRenew(true).build();
    String run = UUID.randomUUID().toString().substring(0, 8);
    try (LockClient client = LockClient.open(uri, options);
        LockClient rival = LockClient.open(uri)) {
      long heapBefore = usedHeapAfterGc(memory);
      AtomicInteger lost = new AtomicInteger();
      List<Lease> held = new ArrayList<>(count);
      long start = System.nanoTime();
      for (int i = 0; i < count; i++) {
        Optional<Lease> lease = client.lock("scale-" + run + "-" + i).tryAcquire();
        if (lease.isEmpty()) {
          throw new AssertionError("lease " + i + " was refused on a fresh name");
        }
        held.add(lease.get().onLost((l, e) -> lost.incrementAndGet()));
      }
      r.put("acquireSeconds", (System.nanoTime() - start) / 1e9);
      long heapHeld = usedHeapAfterGc(memory);
      int maxRenewers = 0;
      long holdEnd = System.nanoTime() + holdSeconds * 1_000_000_000L;
      while (System.nanoTime() - holdEnd < 0) {
        maxRenewers = Math.max(maxRenewers, renewerThreads());
        Thread.sleep(250);
      }
      long heapAfter = usedHeapAfterGc(memory);
      long invalid = held.stream().filter(l -> !l.isValid()).count();
      // The store must agree: a second client is refused a sample of the names.
      int refusedChecks = 0;
      int rivalGotIn = 0;
      for (int i = 0; i < count; i += Math.max(1, count / 200)) {
        refusedChecks++;
        Optional<Lease> steal = rival.lock("scale-" + run + "-" + i).tryAcquire();
        if (steal.isPresent()) {
          rivalGotIn++;
          steal.get().release();
        }
      }
      start = System.nanoTime();
      int releaseFoundLost = 0;
      for (Lease l : held) {
        try {
          l.release();
        } catch (LeaseLostException alreadyCounted) {
          // Counted by its onLost above; the row reports how many, the run does not end here.
          releaseFoundLost++;
        }
      }
      r.put("releaseSeconds", (System.nanoTime() - start) / 1e9);
      r.put("releaseFoundLost", releaseFoundLost);
      r.put("lost", lost.get());
      r.put("invalidAtEnd", invalid);
      r.put("rivalChecks", refusedChecks);
      r.put("rivalAcquired", rivalGotIn);
      r.put("maxRenewerThreads", maxRenewers);
      r.put("heapBeforeMiB", heapBefore / 1048576.0);
      r.put("heapHeldMiB", heapHeld / 1048576.0);
      r.put("heapAfterHoldMiB", heapAfter / 1048576.0);
      r.put("heapPerLeaseBytes", (heapHeld - heapBefore) / (double) count);
      boolean pass =
          lost.get() == 0
              && releaseFoundLost == 0
              && invalid == 0
              && rivalGotIn == 0
              && maxRenewers <= 2;
      r.put("pass", pass);
    }
  }

  private static void contention(
      String store, int threads, int names, int seconds, Map<String, Object> r) throws Exception {
    String uri = Targets.locksmithUri(store);
    String run = UUID.randomUUID().toString().substring(0, 8);
    int clientCount = 8;
    List<LockClient> clients = new ArrayList<>();
    LockHistory history = new LockHistory();
    AtomicLong holds = new AtomicLong();
    AtomicLong busy = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    List<Throwable> firstErrors = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      for (int i = 0; i < clientCount; i++) {
        clients.add(LockClient.open(uri));
      }
      boolean fencing = clients.get(0).capabilities().contains(Capability.FENCING);
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        LockClient client = clients.get(t % clientCount);
        Thread w =
            new Thread(
                () -> {
                  ThreadLocalRandom random = ThreadLocalRandom.current();
                  while (System.nanoTime() - end < 0) {
                    String name = "contend-" + run + "-" + random.nextInt(names);
                    try {
                      Optional<Lease> lease = client.lock(name).tryAcquire(Duration.ofMillis(200));
                      if (lease.isEmpty()) {
                        busy.incrementAndGet();
                        continue;
                      }
                      long token = fencing ? lease.get().fencingToken() : LockHistory.NO_TOKEN;
                      LockHistory.Hold hold = history.acquired(name, token);
                      // End the recorded hold exactly once, whichever of loss or release is first.
                      AtomicBoolean ended = new AtomicBoolean();
                      lease
                          .get()
                          .onLost(
                              (l, e) -> {
                                if (ended.compareAndSet(false, true)) {
                                  hold.lost();
                                }
                              });
                      // Hold briefly now and then so that holds overlap in time across threads.
                      if (random.nextInt(4) == 0) {
                        Thread.sleep(1);
                      }
                      if (ended.compareAndSet(false, true)) {
                        hold.released();
                      }
                      lease.get().release();
                      holds.incrementAndGet();
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      errors.incrementAndGet();
                      if (firstErrors.size() < 5) {
                        firstErrors.add(e);
                      }
                    }
                  }
                },
                "contender-" + t);
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
    } finally {
      for (LockClient c : clients) {
        c.close();
      }
    }
    List<String> violations = HistoryChecker.violations(history);
    r.put("holds", holds.get());
    r.put("holdsPerSecond", holds.get() / (double) seconds);
    r.put("timedOutAttempts", busy.get());
    r.put("errors", errors.get());
    r.put("firstErrors", firstErrors.stream().map(String::valueOf).toList());
    r.put("violations", violations.size());
    r.put("firstViolations", violations.stream().limit(5).toList());
    r.put("pass", violations.isEmpty() && errors.get() == 0 && holds.get() > 0);
  }
}
