package dev.locksmith.integration.example;

import dev.locksmith.LockClient;
import dev.locksmith.integration.LocksmithLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Two "nodes" (two clients, as two processes would have) elect a leader for one role with Spring
 * Integration's own {@link LockRegistryLeaderInitiator} on a {@link LocksmithLockRegistry}; the
 * leader stops, and the other node takes over. Run it with any store URI: {@code mem:demo} by
 * default.
 */
public final class LeaderExample {

  private LeaderExample() {}

  /** One node: its registry's initiator, telling {@code events} what happens to it. */
  private static LockRegistryLeaderInitiator node(
      LockClient client, String id, List<String> events, CountDownLatch granted) {
    LockRegistryLeaderInitiator initiator =
        new LockRegistryLeaderInitiator(
            new LocksmithLockRegistry(client), new DefaultCandidate(id, "report-writer"));
    initiator.setHeartBeatMillis(100);
    initiator.setBusyWaitMillis(100);
    initiator.setLeaderEventPublisher(
        new LeaderEventPublisher() {
          @Override
          public void publishOnGranted(Object source, Context context, String role) {
            events.add(id + " leads " + role);
            granted.countDown();
          }

          @Override
          public void publishOnRevoked(Object source, Context context, String role) {
            events.add(id + " stepped down");
          }

          @Override
          public void publishOnFailedToAcquire(Object source, Context context, String role) {
            // A candidate while another node leads: nothing to tell.
          }
        });
    return initiator;
  }

  /**
   * Starts both nodes, waits for a leader, stops it, waits for the other to lead; returns what
   * happened, in order.
   *
   * @throws IllegalStateException if no node leads within 30 s
   */
  public static List<String> run(String uri) throws InterruptedException {
    List<String> events = new CopyOnWriteArrayList<>();
    CountDownLatch node1Leads = new CountDownLatch(1);
    CountDownLatch node2Leads = new CountDownLatch(1);
    try (LockClient client1 = LockClient.open(uri);
        LockClient client2 = LockClient.open(uri)) {
      LockRegistryLeaderInitiator node1 = node(client1, "node1", events, node1Leads);
      LockRegistryLeaderInitiator node2 = node(client2, "node2", events, node2Leads);
      node1.start();
      await(node1Leads, "node1 never led");
      node2.start(); // a candidate while node1 leads
      node1.stop(); // the leader shuts down: its lock is released and node2 takes over
      await(node2Leads, "node2 never took over");
      node2.stop();
    }
    return events;
  }

  private static void await(CountDownLatch latch, String failure) throws InterruptedException {
    if (!latch.await(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(failure);
    }
  }

  /** Prints who led when. */
  public static void main(String[] args) throws InterruptedException {
    run(args.length > 0 ? args[0] : "mem:demo").forEach(System.out::println);
  }
}
