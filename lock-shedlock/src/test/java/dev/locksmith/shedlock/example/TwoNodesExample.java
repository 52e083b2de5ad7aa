package dev.locksmith.shedlock.example;

import dev.locksmith.LockClient;
import dev.locksmith.shedlock.LocksmithLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;

/**
 * Two "nodes" (two clients, as two processes would have) run the same scheduled job at the same
 * moment through plain ShedLock; the job runs once, and gets its fencing token. Run it with any
 * store URI: {@code mem:demo} by default.
 */
public final class TwoNodesExample {

  private TwoNodesExample() {}

  /** Runs the job on both nodes once and returns what ran. */
  public static List<String> run(String uri) throws InterruptedException {
    List<String> ran = new ArrayList<>();
    try (LockClient node1 = LockClient.open(uri);
        LockClient node2 = LockClient.open(uri);
        LocksmithLockProvider provider1 = new LocksmithLockProvider(node1, "jobs:");
        LocksmithLockProvider provider2 = new LocksmithLockProvider(node2, "jobs:")) {
      List<Thread> nodes = new ArrayList<>();
      for (LocksmithLockProvider provider : List.of(provider1, provider2)) {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        String node = provider == provider1 ? "node1" : "node2";
        // What @SchedulerLock(name = "report", lockAtMostFor = "10m", lockAtLeastFor = "1s") does.
        LockConfiguration report =
            new LockConfiguration(
                Instant.now(), "report", Duration.ofMinutes(10), Duration.ofSeconds(1));
        nodes.add(
            new Thread(
                () ->
                    executor.executeWithLock(
                        (Runnable)
                            () -> {
                              long token =
                                  LocksmithLockProvider.currentFencingToken().orElseThrow();
                              synchronized (ran) {
                                ran.add(node + " ran the report with fencing token " + token);
                              }
                            },
                        report)));
      }
      nodes.forEach(Thread::start);
      for (Thread t : nodes) {
        t.join();
      }
    }
    return ran;
  }

  /** Prints which node ran the job. */
  public static void main(String[] args) throws InterruptedException {
    run(args.length > 0 ? args[0] : "mem:demo").forEach(System.out::println);
  }
}
