package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.ReleasePush;
import java.util.Optional;

/**
 * BROKEN ON PURPOSE: release notifications come over a subscriber connection of their own that the
 * driver never watches, so when the client's network path dies, nothing wakes the waiters that
 * sleep on a notification: they find out at their next poll, a whole backoff later.
 *
 * <p>It mirrors Redis drivers whose pub/sub connection reconnects on its own without telling the
 * subscribers it dropped, and etcd clients whose waiters sleep on a watch whose stream broke
 * (etcd#19597: a waiter whose session was gone waited until its timeout).
 *
 * <p>The kit must fail it on "a waiter whose own connection is cut is told within the store
 * timeout, the lease and the slack" (7.11).
 */
public final class UnwatchedSubscriberLockStore extends ForwardingLockStore {

  private final MemLockStore subscriber;

  /** A connection to {@code space}, with a subscriber connection of its own. */
  public UnwatchedSubscriberLockStore(MemLockSpace space) {
    super(space, "broken/unwatched-subscriber");
    this.subscriber = new MemLockStore(space);
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    // The bug: when the links die, disconnect() reaches the command connection only.
    return subscriber.releasePush().map(push -> (key, run) -> push.onRelease(storedKey(key), run));
  }

  @Override
  public void close() {
    subscriber.close();
    super.close();
  }
}
