package dev.locksmith.shedlock.internal;

import dev.locksmith.LockOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * The {@link SimpleLock} ShedLock's executor holds: a view of one {@link Hold}. ShedLock's {@link
 * AbstractSimpleLock} keeps its contract: once unlocked, or replaced by the lock an {@code extend}
 * returned, {@code unlock()} and {@code extend()} throw {@link IllegalStateException}.
 */
public final class HeldLock extends AbstractSimpleLock {

  private final Hold hold;

  /** The view of {@code hold} for {@code configuration}; the thread's current lock from now on. */
  public HeldLock(LockConfiguration configuration, Hold hold) {
    super(configuration);
    this.hold = hold;
  }

  /**
   * Extends the lock to {@code lockAtMostFor} from now, held at least {@code lockAtLeastFor} from
   * now.
   *
   * @return the lock that replaces this one, or empty if it was no longer held (its lockAtMostFor
   *     had passed, or the store had lost it); either way this one is done with (ShedLock's
   *     contract), and a later {@code unlock()} of it throws {@link IllegalStateException}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code lockAtLeastFor} is negative or longer than {@code
   *     lockAtMostFor}, or {@code lockAtMostFor} is not positive or over seven days
   * @throws IllegalStateException if this lock was unlocked or already extended
   * @throws net.javacrumbs.shedlock.support.LockException if the store failed
   */
  @Override
  public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
    Objects.requireNonNull(lockAtMostFor, "lockAtMostFor must not be null");
    Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor must not be null");
    return super.extend(lockAtMostFor, lockAtLeastFor);
  }

  @Override
  protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
    Duration atMost = checkLockAtMostFor(newConfiguration);
    if (!hold.extend(atMost, newConfiguration.getLockAtLeastFor())) {
      return Optional.empty();
    }
    return Optional.of(new HeldLock(newConfiguration, hold));
  }

  @Override
  protected void doUnlock() {
    try {
      hold.unlock();
    } finally {
      JobLocks.remove(hold);
    }
  }

  /**
   * Checks ShedLock's lockAtMostFor against what a Locksmith lease can be.
   *
   * @throws IllegalArgumentException if not positive or longer than {@link
   *     LockOptions#MAX_LEASE_TIME}
   */
  public static Duration checkLockAtMostFor(LockConfiguration configuration) {
    Duration atMost = configuration.getLockAtMostFor();
    if (atMost.isZero() || atMost.isNegative()) {
      throw new IllegalArgumentException(
          "lockAtMostFor of ShedLock lock '"
              + configuration.getName()
              + "' must be positive, was "
              + atMost);
    }
    if (atMost.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
      throw new IllegalArgumentException(
          "lockAtMostFor of ShedLock lock '"
              + configuration.getName()
              + "' must be at most "
              + LockOptions.MAX_LEASE_TIME
              + ", was "
              + atMost);
    }
    return atMost;
  }

  @Override
  public String toString() {
    return "HeldLock{" + lockConfiguration + ", " + hold + "}";
  }
}
