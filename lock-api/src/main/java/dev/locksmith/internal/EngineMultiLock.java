package dev.locksmith.internal;

import dev.locksmith.Lease;
import dev.locksmith.LockTimeoutException;
import dev.locksmith.MultiLease;
import dev.locksmith.MultiLock;
import dev.locksmith.spi.LockKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * All-or-nothing acquisition of several locks in one canonical order (natural order of names),
 * which is what makes two callers with overlapping sets unable to deadlock.
 */
final class EngineMultiLock implements MultiLock {

  private final List<EngineLock> locks;

  EngineMultiLock(EngineClient client, Collection<String> names) {
    if (names.isEmpty()) {
      throw new IllegalArgumentException(
          "names must not be empty: lockAll needs at least one name");
    }
    TreeSet<String> sorted = new TreeSet<>();
    for (String name : names) {
      String checked = InputRules.name(name);
      if (!sorted.add(checked)) {
        throw new IllegalArgumentException(
            "names must be distinct; '" + checked + "' appears more than once");
      }
    }
    this.locks =
        sorted.stream()
            .map(n -> new EngineLock(client, LockKey.exclusive(n)))
            .collect(Collectors.toList());
  }

  @Override
  public List<String> names() {
    return locks.stream().map(EngineLock::name).collect(Collectors.toUnmodifiableList());
  }

  @Override
  public Optional<MultiLease> tryAcquire() {
    try {
      return Optional.ofNullable(acquireAll(0, Interrupts.DEFERRED));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public Optional<MultiLease> tryAcquire(Duration wait) throws InterruptedException {
    return Optional.ofNullable(acquireAll(InputRules.wait(wait).toNanos(), Interrupts.HONOURED));
  }

  @Override
  public MultiLease acquire() throws InterruptedException {
    MultiLease all = acquireAll(EngineLock.FOREVER, Interrupts.HONOURED);
    if (all == null) {
      throw new IllegalStateException("an unbounded acquire returned without leases");
    }
    return all;
  }

  @Override
  public MultiLease acquire(Duration wait) throws InterruptedException {
    MultiLease all = acquireAll(InputRules.wait(wait).toNanos(), Interrupts.HONOURED);
    if (all == null) {
      throw new LockTimeoutException(String.join(",", names()), wait);
    }
    return all;
  }

  private @Nullable MultiLease acquireAll(long waitNanos, Interrupts interrupts)
      throws InterruptedException {
    long deadline =
        waitNanos == EngineLock.FOREVER ? EngineLock.FOREVER : System.nanoTime() + waitNanos;
    List<Lease> held = new ArrayList<>(locks.size());
    boolean complete = false;
    try {
      for (EngineLock lock : locks) {
        long left =
            deadline == EngineLock.FOREVER
                ? EngineLock.FOREVER
                : Math.max(0, deadline - System.nanoTime());
        EngineLease lease = lock.attempt(left, interrupts, null);
        if (lease == null) {
          return null;
        }
        held.add(lease);
      }
      complete = true;
      return new Leases(held);
    } finally {
      if (!complete) {
        releaseReversed(held);
      }
    }
  }

  private static void releaseReversed(List<Lease> held) {
    RuntimeException first = null;
    for (int i = held.size() - 1; i >= 0; i--) {
      try {
        held.get(i).release();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** The leases of one successful acquireAll. */
  private static final class Leases implements MultiLease {
    private final List<Lease> leases;
    private boolean released;

    Leases(List<Lease> leases) {
      this.leases = List.copyOf(leases);
    }

    @Override
    public List<Lease> leases() {
      return leases;
    }

    @Override
    public Lease lease(String name) {
      for (Lease l : leases) {
        if (l.name().equals(name)) {
          return l;
        }
      }
      throw new IllegalArgumentException("'" + name + "' is not one of the locks held here");
    }

    @Override
    public boolean isValid() {
      return leases.stream().allMatch(Lease::isValid);
    }

    @Override
    public void release() {
      synchronized (this) {
        if (released) {
          return;
        }
        released = true;
      }
      releaseReversed(leases);
    }

    @Override
    public void close() {
      release();
    }
  }
}
