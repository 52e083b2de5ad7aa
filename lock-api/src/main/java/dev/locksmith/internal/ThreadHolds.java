package dev.locksmith.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-thread holds of one lock name in one client, shared by every {@link ThreadLockView} of
 * that name so that nesting counts the same whichever view a thread uses.
 */
final class ThreadHolds {

  /** One thread's hold: the lease of its first lock() and how many times it nested. */
  static final class Hold {
    final EngineLease lease;
    int count = 1;

    Hold(EngineLease lease) {
      this.lease = lease;
    }
  }

  // Keyed by thread id; only the owning thread reads or writes its own entry.
  private final ConcurrentHashMap<Long, Hold> byThread = new ConcurrentHashMap<>();

  Hold get() {
    return byThread.get(Thread.currentThread().getId());
  }

  void put(Hold hold) {
    byThread.put(Thread.currentThread().getId(), hold);
  }

  void remove() {
    byThread.remove(Thread.currentThread().getId());
  }
}
