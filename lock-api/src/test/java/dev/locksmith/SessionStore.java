package dev.locksmith;

import dev.locksmith.mem.MemLockStore;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.ReleasePush;
import dev.locksmith.spi.SessionEvents;
import dev.locksmith.spi.StoreListener;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A mem: connection whose holds are bound to a session, as ZooKeeper's are, and whose session the
 * test plays: it pushes the {@link StoreListener} events (a hold dropped, the connection suspended,
 * resumed, the session lost) that a real session store learns on its own.
 */
final class SessionStore implements LockStore {
  private final MemLockStore store;
  private final Map<String, String> ownerOf = new ConcurrentHashMap<>();
  private final Map<String, Long> tokenOf = new ConcurrentHashMap<>();
  final java.util.concurrent.atomic.AtomicInteger acquireCalls =
      new java.util.concurrent.atomic.AtomicInteger();
  private volatile @Nullable StoreListener listener;

  SessionStore(MemLockStore store) {
    this.store = store;
  }

  /** The engine's listener, once the client registered it. */
  StoreListener events() {
    return Objects.requireNonNull(listener, "the client has not registered its listener");
  }

  /** The owner that last acquired the exclusive lock {@code name} through this connection. */
  String ownerOf(String name) {
    return Objects.requireNonNull(ownerOf.get(name), "no acquire of " + name);
  }

  /** The token of the hold that last acquired the exclusive lock {@code name} here. */
  long tokenOf(String name) {
    return Objects.requireNonNull(tokenOf.get(name), "no acquire of " + name);
  }

  @Override
  public String describe() {
    return "session-bound " + store.describe();
  }

  @Override
  public String keyPrefix() {
    return store.keyPrefix();
  }

  @Override
  public Set<Capability> promises() {
    return store.promises();
  }

  @Override
  public Acquisition tryAcquire(LockKey key, String owner, Duration leaseTime) {
    acquireCalls.incrementAndGet();
    Acquisition a = store.tryAcquire(key, owner, LockOptions.MAX_LEASE_TIME); // held until released
    if (a.isAcquired()) {
      ownerOf.put(key.name(), owner);
      tokenOf.put(key.name(), a.token());
    }
    return a;
  }

  @Override
  public boolean extend(LockKey key, String owner, Duration leaseTime) {
    return store.read(key).locked();
  }

  @Override
  public ReleaseOutcome release(LockKey key, String owner) {
    return store.release(key, owner);
  }

  @Override
  public LockState read(LockKey key) {
    return store.read(key);
  }

  @Override
  public Optional<ReleasePush> releasePush() {
    return store.releasePush();
  }

  @Override
  public Optional<SessionEvents> sessionEvents() {
    return Optional.of(events -> this.listener = events);
  }

  @Override
  public void close() {
    store.close();
  }
}
