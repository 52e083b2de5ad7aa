package dev.locksmith.examples.scheduler;

import dev.locksmith.spring.LockContext;
import dev.locksmith.spring.Locked;
import dev.locksmith.spring.OnBusy;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/** Ships orders, one instance at a time per order. */
@Service
public class OrderService {

  /** What shipping an order returned. */
  public record Shipment(long orderId, long fencingToken) {}

  private final Duration shipTime;

  public OrderService(@Value("${orders.ship-time:0s}") Duration shipTime) {
    this.shipTime = shipTime;
  }

  /**
   * Ships order {@code id} holding the lock {@code order:<id>}; waits up to a second for another
   * instance that is shipping it, then fails with {@link dev.locksmith.LockTimeoutException}.
   */
  @Locked(name = "order:#{#id}", waitFor = "1s", onBusy = OnBusy.FAIL)
  public Shipment ship(long id) throws InterruptedException {
    Thread.sleep(shipTime.toMillis()); // the work
    return new Shipment(id, LockContext.currentLease().fencingToken());
  }
}
