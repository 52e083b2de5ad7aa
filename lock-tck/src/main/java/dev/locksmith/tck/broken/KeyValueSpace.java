package dev.locksmith.tck.broken;

import dev.locksmith.LockStoreException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A tiny in-memory key-value "server" with Redis-like commands (SETNX, GETSET, INCR, EXPIRE…),
 * shared by every connection of one broken store so that they can contend like processes do.
 *
 * <p>Each command is atomic on its own; the broken stores go wrong by combining them the way
 * well-known broken lock recipes do. Expiry is judged on this server's clock ({@link
 * System#nanoTime()}).
 *
 * <p>It also stands in for a server that fails, so that the kit's fault rules run against the
 * broken stores too: {@link #startOutage()} makes every command throw {@link LockStoreException}
 * (time runs on, so keys expire meanwhile), and {@link #restart()} drops every key, as a Redis
 * without persistence does.
 */
public final class KeyValueSpace {

  private static final long NEVER = Long.MAX_VALUE;

  private final Map<String, Entry> entries = new HashMap<>();
  private volatile boolean unavailable;

  private static final class Entry {
    String value;
    long expiresAt;

    Entry(String value, long expiresAt) {
      this.value = value;
      this.expiresAt = expiresAt;
    }
  }

  /** Makes every command fail with {@link LockStoreException} until {@link #endOutage()}. */
  public void startOutage() {
    this.unavailable = true;
  }

  /** Makes commands work again after {@link #startOutage()}. */
  public void endOutage() {
    this.unavailable = false;
  }

  /** Drops every key, as a restart of a server without persistence does. */
  public synchronized void restart() {
    entries.clear();
  }

  /** SET key value NX [PX ttl]: sets the key only if absent; null ttl means no expiry. */
  public synchronized boolean setIfAbsent(String key, String value, @Nullable Duration ttl) {
    if (live(key) != null) {
      return false;
    }
    entries.put(key, new Entry(value, deadline(ttl)));
    return true;
  }

  /** SET key value (keeps no expiry). */
  public synchronized void set(String key, String value) {
    live(key);
    entries.put(key, new Entry(value, NEVER));
  }

  /** GET key. */
  public synchronized @Nullable String get(String key) {
    Entry e = live(key);
    return e == null ? null : e.value;
  }

  /** GETSET key value: sets the value (no expiry) and returns the old one. */
  public synchronized @Nullable String getSet(String key, String value) {
    Entry e = live(key);
    entries.put(key, new Entry(value, NEVER));
    return e == null ? null : e.value;
  }

  /** DEL key: whether a live key was removed. */
  public synchronized boolean delete(String key) {
    return live(key) != null && entries.remove(key) != null;
  }

  /** PEXPIRE key ttl: whether the key exists. */
  public synchronized boolean expire(String key, Duration ttl) {
    Entry e = live(key);
    if (e == null) {
      return false;
    }
    e.expiresAt = deadline(ttl);
    return true;
  }

  /** A script's compare-and-delete: deletes {@code key} only if its value is {@code value}. */
  public synchronized boolean deleteIfValue(String key, String value) {
    Entry e = live(key);
    return e != null && e.value.equals(value) && entries.remove(key) != null;
  }

  /** A script's compare-and-expire: sets the expiry only if the value is {@code value}. */
  public synchronized boolean expireIfValue(String key, String value, Duration ttl) {
    Entry e = live(key);
    if (e == null || !e.value.equals(value)) {
      return false;
    }
    e.expiresAt = deadline(ttl);
    return true;
  }

  /** SCAN: every live key. */
  public synchronized java.util.List<String> keys() {
    long now = System.nanoTime();
    entries.values().removeIf(e -> e.expiresAt != NEVER && e.expiresAt - now <= 0);
    return new java.util.ArrayList<>(entries.keySet());
  }

  /** Whether {@code key} is live and has an expiry (a lock with a lease, not a counter). */
  public synchronized boolean expiring(String key) {
    Entry e = live(key);
    return e != null && e.expiresAt != NEVER;
  }

  /** INCR key (no expiry on a new key). */
  public synchronized long incr(String key) {
    return add(key, 1);
  }

  /** DECR key. */
  public synchronized long decr(String key) {
    return add(key, -1);
  }

  /** PTTL key: the time left, empty if the key is absent or has no expiry. */
  public synchronized Optional<Duration> ttl(String key) {
    Entry e = live(key);
    if (e == null || e.expiresAt == NEVER) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofNanos(Math.max(0, e.expiresAt - System.nanoTime())));
  }

  private long add(String key, long delta) {
    Entry e = live(key);
    long value = (e == null ? 0 : Long.parseLong(e.value)) + delta;
    if (e == null) {
      entries.put(key, new Entry(Long.toString(value), NEVER));
    } else {
      e.value = Long.toString(value);
    }
    return value;
  }

  private @Nullable Entry live(String key) {
    Objects.requireNonNull(key, "key");
    if (unavailable) {
      throw new LockStoreException("the key-value space is unavailable (an outage was injected)");
    }
    Entry e = entries.get(key);
    if (e != null && e.expiresAt != NEVER && e.expiresAt - System.nanoTime() <= 0) {
      entries.remove(key);
      return null;
    }
    return e;
  }

  private static long deadline(@Nullable Duration ttl) {
    return ttl == null ? NEVER : System.nanoTime() + ttl.toNanos();
  }
}
