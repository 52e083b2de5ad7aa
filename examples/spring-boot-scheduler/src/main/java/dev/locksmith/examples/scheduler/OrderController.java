package dev.locksmith.examples.scheduler;

import dev.locksmith.LockTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders/{id}/ship}: 200 with the shipment, or 409 while another instance ships it.
 */
@RestController
public class OrderController {

  private final OrderService orders;

  public OrderController(OrderService orders) {
    this.orders = orders;
  }

  @PostMapping("/orders/{id}/ship")
  public OrderService.Shipment ship(@PathVariable long id) throws InterruptedException {
    return orders.ship(id);
  }

  @ExceptionHandler(LockTimeoutException.class)
  @ResponseStatus(HttpStatus.CONFLICT)
  public String busy(LockTimeoutException e) {
    return e.getMessage();
  }
}
