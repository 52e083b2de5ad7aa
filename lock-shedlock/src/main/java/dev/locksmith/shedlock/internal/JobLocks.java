package dev.locksmith.shedlock.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.OptionalLong;

/**
 * The locks a thread took through a Locksmith ShedLock provider and still holds, innermost first:
 * ShedLock's executor locks, runs the job and unlocks on one thread, so the job finds its lock
 * here.
 *
 * <p>Entries that no longer hold (unlocked, also on another thread; past lockAtMostFor; lost) are
 * dropped whenever the thread takes a lock or asks for its token.
 */
public final class JobLocks {

  private static final ThreadLocal<Deque<Hold>> STACK = new ThreadLocal<>();

  private JobLocks() {}

  /** {@code hold} is now the calling thread's innermost lock. */
  public static void push(Hold hold) {
    Deque<Hold> stack = STACK.get();
    if (stack == null) {
      stack = new ArrayDeque<>();
      STACK.set(stack);
    }
    stack.removeIf(h -> !h.heldForJob());
    stack.push(hold);
  }

  /** {@code hold} was unlocked; it leaves the calling thread's stack if it was there. */
  static void remove(Hold hold) {
    Deque<Hold> stack = STACK.get();
    if (stack != null) {
      stack.remove(hold);
      if (stack.isEmpty()) {
        STACK.remove();
      }
    }
  }

  /**
   * The fencing token of the calling thread's innermost lock that it still holds; empty if there is
   * none.
   *
   * @throws dev.locksmith.UnsupportedCapabilityException if that lock's store has no fencing tokens
   */
  public static OptionalLong currentFencingToken() {
    Deque<Hold> stack = STACK.get();
    if (stack == null) {
      return OptionalLong.empty();
    }
    for (Iterator<Hold> it = stack.iterator(); it.hasNext(); ) {
      Hold hold = it.next();
      if (!hold.heldForJob()) {
        it.remove();
      } else {
        return OptionalLong.of(hold.fencingToken());
      }
    }
    STACK.remove();
    return OptionalLong.empty();
  }
}
