package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * BROKEN ON PURPOSE: the driver keeps a handle for each hold it took (the node path, lease id or
 * CAS version a real store needs to address the hold) and drops it before sending the release; a
 * release that then fails (the store is down) leaves the hold in the store with no handle, and
 * every later release of it answers "not held" without asking.
 *
 * <p>It mirrors Locksmith's ZooKeeper store before issue 38 (the hold was forgotten before the
 * delete, so an expired session read as an outage) and Curator's CURATOR-678 (a delete that failed
 * on a broken connection leaked the lock node, and every later acquire failed): the clean-up runs
 * on the success path only.
 *
 * <p>The kit must fail it on "a release that fails because the store is down frees the lock once
 * the store is back" (11.5): the engine asks again, and the store no longer knows what to delete,
 * so the lock stays held until its lease ends.
 */
public final class ReleaseForgetsHandleLockStore extends ForwardingLockStore {

  // The holds this connection took: key and owner to the number of nested holds; guarded by this.
  private final Map<Map.Entry<LockKey, String>, Integer> handles = new HashMap<>();

  /** A connection to {@code space}. */
  public ReleaseForgetsHandleLockStore(MemLockSpace space) {
    super(space, "broken/release-forgets-handle");
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    Acquisition a = super.tryAcquire(key, owner, leaseTime);
    if (a.isAcquired()) {
      synchronized (this) {
        handles.put(Map.entry(key, owner), a.holds());
      }
    }
    return a;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    synchronized (this) {
      Integer holds = handles.get(Map.entry(key, owner));
      if (holds == null) {
        return ReleaseOutcome.NOT_HELD; // No handle: nothing it knows how to address.
      }
      if (holds > 1) {
        handles.put(Map.entry(key, owner), holds - 1);
      } else {
        handles.remove(Map.entry(key, owner)); // The bug: forgotten before the store has done it.
      }
    }
    return super.release(key, owner);
  }
}
