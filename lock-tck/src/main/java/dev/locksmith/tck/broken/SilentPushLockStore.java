package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.ReleasePush;
import java.util.Optional;

/**
 * BROKEN ON PURPOSE: the store declares WAKE_ON_RELEASE and accepts subscriptions, but no release
 * ever reaches a subscriber: waiters are woken only by their own polling.
 *
 * <p>It mirrors a pub/sub wake-up whose two sides disagree on the channel: waiters subscribe to
 * {@code lock:{name}:released} while the release script publishes to {@code {name}:released} (a key
 * prefix added on one side only), or a release path that forgets the {@code PUBLISH} for one kind
 * of lock. Nothing fails; waiters just fall back to polling, and with the long backoff that push
 * stores are configured with, wake up to a backoff late.
 *
 * <p>Caught by 7.8: on a store that declares WAKE_ON_RELEASE, a waiter with a 30 s backoff wakes
 * within the slack after the holder releases. (The other waiting rules use the default 50 ms
 * backoff, under which polling alone wakes a waiter in time.)
 */
public final class SilentPushLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public SilentPushLockStore(MemLockSpace space) {
    super(space, "broken/silent-push");
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    // The bug: a subscription on a channel nobody publishes to.
    return Optional.of((key, onRelease) -> () -> {});
  }
}
