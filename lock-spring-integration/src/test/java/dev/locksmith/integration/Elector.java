package dev.locksmith.integration;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * One process's Spring Integration {@link LockRegistryLeaderInitiator} for a role, counting the
 * leader events it publishes.
 */
final class Elector implements LeaderEventPublisher, AutoCloseable {

  final AtomicInteger granted = new AtomicInteger();
  final AtomicInteger revoked = new AtomicInteger();
  final AtomicInteger failedToAcquire = new AtomicInteger();
  private final LockRegistryLeaderInitiator initiator;

  /**
   * An initiator on {@code registry} for {@code role}, checking its hold every {@code heartBeat} ms
   * and pausing {@code busyWait} ms after it failed or lost leadership.
   */
  Elector(LockRegistry registry, String id, String role, long heartBeat, long busyWait) {
    initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate(id, role));
    initiator.setHeartBeatMillis(heartBeat);
    initiator.setBusyWaitMillis(busyWait);
    initiator.setPublishFailedEvents(true);
    initiator.setLeaderEventPublisher(this);
  }

  Elector start() {
    initiator.start();
    return this;
  }

  void stop() {
    initiator.stop();
  }

  boolean isLeader() {
    return initiator.getContext().isLeader();
  }

  @Override
  public void publishOnGranted(Object source, Context context, String role) {
    granted.incrementAndGet();
  }

  @Override
  public void publishOnRevoked(Object source, Context context, String role) {
    revoked.incrementAndGet();
  }

  @Override
  public void publishOnFailedToAcquire(Object source, Context context, String role) {
    failedToAcquire.incrementAndGet();
  }

  @Override
  public void close() {
    initiator.stop();
    initiator.destroy();
  }
}
