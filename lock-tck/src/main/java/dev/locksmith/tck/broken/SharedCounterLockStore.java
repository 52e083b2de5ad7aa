package dev.locksmith.tck.broken;

/**
 * BROKEN ON PURPOSE: every lock draws its fencing token from one shared counter ({@code INCR
 * fence}), which keeps nothing per name, but a counter the server evicts (or loses in a restart
 * without persistence) starts again at 1, below the tokens it handed out before.
 *
 * <p>It mirrors the obvious fix of a per-name counter's leak: one counter, with nothing to keep it
 * above the tokens it gave when it is lost. A Redis shared with a cache ({@code allkeys-lru})
 * evicts it whenever it is idle long enough.
 *
 * <p>The kit must fail it on "tokens keep rising after the store drops everything idle" (15.2)
 * alone.
 */
public final class SharedCounterLockStore extends FencedKeyValueLockStore {

  /** A connection to {@code space}. */
  public SharedCounterLockStore(KeyValueSpace space) {
    super(space, "broken/shared-counter");
  }

  @Override
  protected long drawToken(String name) {
    return space.incr("fence");
  }
}
