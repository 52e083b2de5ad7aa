package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.ReleaseOutcome;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * BROKEN ON PURPOSE: the driver keeps a local lock per bucket of names ({@code hashCode() & 255}),
 * taken while this connection holds a name of that bucket, so that two threads of one process do
 * not send contending acquires; two different names whose hashes share a bucket exclude each other
 * on this connection.
 *
 * <p>It mirrors Spring Integration 6.5.9's {@code JdbcLockRegistry}, whose locks took their local
 * delegate from a 256-slot {@code DefaultLockRegistry}: keys "0" and "641" shared a slot, so one
 * blocked the other (spring-integration#11157), and an unlock of one skipped the database delete of
 * the other (#11146).
 *
 * <p>The kit must fail it on "names whose hash codes equal a held one are taken at once" (1.7), and
 * wherever a rule's names happen to meet in a bucket: 12.15 and 15.1 (its 1,000 names), and 12.8,
 * where a bucket still taken by a hold whose release failed answers busy without asking the store
 * during an outage.
 */
public final class HashBucketLockStore extends ForwardingLockStore {

  // Bucket to the name this connection holds in it and how many holds; guarded by this.
  private final Map<Integer, Map.Entry<String, Integer>> buckets = new HashMap<>();

  /** A connection to {@code space}. */
  public HashBucketLockStore(MemLockSpace space) {
    super(space, "broken/hash-bucket");
  }

  private static int bucket(LockKey key) {
    return key.name().hashCode() & 0xff;
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) throws Exception {
    synchronized (this) {
      Map.Entry<String, Integer> taken = buckets.get(bucket(key));
      if (taken != null && !taken.getKey().equals(key.toString())) {
        return Acquisition.busy(); // The bug: another name's hold keeps this one out.
      }
    }
    Acquisition a = super.tryAcquire(key, owner, leaseTime);
    if (a.isAcquired()) {
      synchronized (this) {
        buckets.merge(bucket(key), Map.entry(key.toString(), 1), (was, one) -> bump(was, 1));
      }
    }
    return a;
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) throws Exception {
    ReleaseOutcome outcome = super.release(key, owner);
    if (outcome != ReleaseOutcome.NOT_HELD) {
      synchronized (this) {
        buckets.computeIfPresent(
            bucket(key), (b, was) -> was.getValue() > 1 ? bump(was, -1) : null);
      }
    }
    return outcome;
  }

  private static Map.Entry<String, Integer> bump(Map.Entry<String, Integer> was, int by) {
    return Map.entry(was.getKey(), was.getValue() + by);
  }
}
