package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * BROKEN ON PURPOSE: release and extend accept an owner id that is a prefix of the holder's.
 *
 * <p>It mirrors an owner check written as {@code string.find(value, ARGV[1], 1, true) == 1} in Lua,
 * {@code WHERE owner LIKE ? || '%'} in SQL, or {@code holder.startsWith(owner)} in Java, usually
 * meant to let an owner prefix ({@code pid1234/}) speak for all of that process's holds. Owner
 * {@code …/1} then releases the hold of owner {@code …/17}.
 *
 * <p>The kit must fail it on "the store refuses every other owner" (12.2), whose foreign owners
 * include the holder's id less its last character.
 */
public final class OwnerPrefixMatchLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public OwnerPrefixMatchLockStore(MemLockSpace space) {
    super(space, "broken/owner-prefix-match");
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) throws Exception {
    return delegate.extend(key, matchingHolder(key, owner), leaseTime);
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    return delegate.release(key, matchingHolder(key, owner));
  }

  // The bug: "the holder's id starts with the caller's" is taken for "the caller is the holder".
  private String matchingHolder(LockKey key, String owner) throws Exception {
    if (key.mode() == LockMode.READ) {
      return owner;
    }
    @Nullable String holder = delegate.read(key).owner();
    return holder != null && holder.startsWith(owner) ? holder : owner;
  }
}
