package dev.locksmith.tck.broken;

/**
 * BROKEN ON PURPOSE: each lock name has a fencing counter of its own ({@code INCR fence:<name>}),
 * which never expires, so every name ever locked leaves a key behind for good, and a counter that
 * the server evicts (or loses in a restart without persistence) starts again at 1.
 *
 * <p>It mirrors Redis lock libraries that keep a per-lock token key (Redisson's fenced lock,
 * Locksmith's own Redis store before issue 38: 10,000 order ids locked once left 10,000 keys, and
 * with {@code maxmemory-policy allkeys-lru} a lock whose token was 50 handed out 1).
 *
 * <p>The kit must fail it on "the store keeps nothing per name" (15.1) and on "tokens keep rising
 * after the store drops everything idle" (15.2).
 */
public final class PerNameCounterLockStore extends FencedKeyValueLockStore {

  /** A connection to {@code space}. */
  public PerNameCounterLockStore(KeyValueSpace space) {
    super(space, "broken/per-name-counter");
  }

  @Override
  protected long drawToken(String name) {
    return space.incr("fence:" + name);
  }
}
