package dev.locksmith.redis.internal;

/**
 * The Lua scripts of the script strategy. Each runs atomically in Redis and gets every key in
 * {@code KEYS} and every name and owner in {@code ARGV}: names are data, never code.
 *
 * <p>Answers: acquire returns {@code {1, token, holds}} or {@code {0, retryAfterMs}} ({@code -1}
 * when unknown); release returns 0 (not held), 1 (hold decremented) or 2 (released); extend returns
 * 1 or 0. Reader and waiting-writer expiries are absolute milliseconds of the server's {@code
 * TIME}.
 *
 * <p>Tokens are drawn from a counter shared by many names ({@code KeyLayout#tokensKey}): a fresh
 * exclusive or write hold takes {@code max(counter + 1, TIME in µs, legacy + 1)} and stores it back
 * in the counter (and in the name's legacy per-name counter, if an earlier version left one). A
 * counter that was lost (evicted by an {@code allkeys-*} policy, flushed, or forgotten by a restart
 * without persistence) so restarts above every token handed out before, as long as the server's
 * clock does not go back; while the counter exists, tokens rise whatever the clock does. A first
 * read hold takes {@code max(counter, TIME in µs, legacy)} without counting up and stores it back
 * if higher, so every later writer's token is greater. All of it runs inside the acquire script: no
 * extra round trip.
 *
 * <p>A release or withdrawal wakes waiters with {@code PUBLISH}; its last argument says when:
 * {@code subscribed} publishes only if the server counts a subscriber on the channel (a waiter
 * subscribes before its first attempt, so one that could miss the release is always counted),
 * {@code always} publishes regardless, for a cluster, where a subscriber may be connected to
 * another node than the one that runs the script.
 */
final class LockScripts {

  private LockScripts() {}

  /** Functions shared by the read-write scripts. */
  private static final String RW_FUNCTIONS =
      String.join(
          "\n",
          "local function now_ms()",
          "  local t = redis.call('TIME')",
          "  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
          "end",
          "local function purge_readers(key, now)",
          "  local all = redis.call('HGETALL', key)",
          "  for i = 1, #all, 2 do",
          "    local f = all[i]",
          "    if string.sub(f, 1, 2) == 'e:' and tonumber(all[i + 1]) <= now then",
          "      local o = string.sub(f, 3)",
          "      redis.call('HDEL', key, f, 'h:' .. o, 't:' .. o)",
          "    end",
          "  end",
          "end",
          "local function purge_waiting(key, now)",
          "  local all = redis.call('HGETALL', key)",
          "  for i = 1, #all, 2 do",
          "    if tonumber(all[i + 1]) <= now then redis.call('HDEL', key, all[i]) end",
          "  end",
          "end",
          "local function stretch(key, ms)",
          "  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end",
          "end",
          "");

  /**
   * Token draws (see the class comment). Numbers are Lua doubles: exact up to 2^53, that is, for
   * microsecond clocks until the year 2255. They are written back with {@code %.0f}, so that the
   * counter always holds a plain integer ({@code INCR}-able by an earlier version's clients).
   */
  private static final String TOKEN_FUNCTIONS =
      String.join(
          "\n",
          "local function now_us()",
          "  local t = redis.call('TIME')",
          "  return tonumber(t[1]) * 1000000 + tonumber(t[2])",
          "end",
          "local function draw(counter, legacy)",
          "  local t = math.max(tonumber(redis.call('GET', counter) or '0') + 1, now_us())",
          "  local old = redis.call('GET', legacy)",
          "  if old then t = math.max(t, tonumber(old) + 1) end",
          "  local s = string.format('%.0f', t)",
          "  redis.call('SET', counter, s)",
          "  if old then redis.call('SET', legacy, s) end",
          "  return t, s",
          "end",
          "local function peek(counter, legacy)",
          "  local c = tonumber(redis.call('GET', counter) or '0')",
          "  local t = math.max(c, now_us())",
          "  local old = redis.call('GET', legacy)",
          "  if old then t = math.max(t, tonumber(old)) end",
          "  local s = string.format('%.0f', t)",
          "  if t > c then redis.call('SET', counter, s) end",
          "  if old and t > tonumber(old) then redis.call('SET', legacy, s) end",
          "  return t, s",
          "end",
          "");

  /** Wakes the waiters of a channel: see the class comment. */
  private static final String WAKE_FUNCTION =
      String.join(
          "\n",
          "local function wake(channel, message, when)",
          "  if when == 'always' or redis.call('PUBSUB', 'NUMSUB', channel)[2] > 0 then",
          "    redis.call('PUBLISH', channel, message)",
          "  end",
          "end",
          "");

  /** KEYS: hold, tokens, legacy fence. ARGV: owner field, lease ms. */
  static final LuaScript ACQUIRE =
      new LuaScript(
          "acquire",
          TOKEN_FUNCTIONS
              + String.join(
                  "\n",
                  // A free lock first: the common case skips the re-entry checks.
                  "if redis.call('EXISTS', KEYS[1]) == 0 then",
                  "  local t, s = draw(KEYS[2], KEYS[3])",
                  "  redis.call('HSET', KEYS[1], ARGV[1], 1, 'token', s)",
                  "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
                  "  return {1, t, 1}",
                  "end",
                  "local n = redis.call('HGET', KEYS[1], ARGV[1])",
                  "if n then",
                  "  n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)",
                  "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
                  "  return {1, tonumber(redis.call('HGET', KEYS[1], 'token')), n}",
                  "end",
                  "return {0, redis.call('PTTL', KEYS[1])}"));

  /** KEYS: hold. ARGV: owner field, lease ms. */
  static final LuaScript EXTEND =
      new LuaScript(
          "extend",
          String.join(
              "\n",
              "if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then",
              "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
              "  return 1",
              "end",
              "return 0"));

  /** KEYS: hold. ARGV: owner field, channel, when to wake. */
  static final LuaScript RELEASE =
      new LuaScript(
          "release",
          WAKE_FUNCTION
              + String.join(
                  "\n",
                  "local n = redis.call('HGET', KEYS[1], ARGV[1])",
                  "if not n then return 0 end",
                  "if tonumber(n) > 1 then",
                  "  redis.call('HINCRBY', KEYS[1], ARGV[1], -1)",
                  "  return 1",
                  "end",
                  "redis.call('DEL', KEYS[1])",
                  "wake(ARGV[2], 'released', ARGV[3])",
                  "return 2"));

  /** KEYS: write, read, wait, tokens, legacy fence. ARGV: owner field, lease ms, owner. */
  static final LuaScript ACQUIRE_WRITE =
      new LuaScript(
          "acquire-write",
          RW_FUNCTIONS
              + TOKEN_FUNCTIONS
              + String.join(
                  "\n",
                  "local now = now_ms()",
                  "local lease = tonumber(ARGV[2])",
                  "purge_readers(KEYS[2], now)",
                  "purge_waiting(KEYS[3], now)",
                  "local n = redis.call('HGET', KEYS[1], ARGV[1])",
                  "if n then",
                  "  n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)",
                  "  redis.call('PEXPIRE', KEYS[1], lease)",
                  "  return {1, tonumber(redis.call('HGET', KEYS[1], 'token')), n}",
                  "end",
                  "local busy = -2",
                  "if redis.call('EXISTS', KEYS[1]) == 1 then",
                  "  busy = redis.call('PTTL', KEYS[1])",
                  "elseif redis.call('HLEN', KEYS[2]) > 0 then",
                  "  busy = redis.call('PTTL', KEYS[2])",
                  "end",
                  "if busy ~= -2 then",
                  "  redis.call('HSET', KEYS[3], ARGV[3], now + lease)",
                  "  stretch(KEYS[3], lease)",
                  "  return {0, busy}",
                  "end",
                  "redis.call('HDEL', KEYS[3], ARGV[3])",
                  "local t, s = draw(KEYS[4], KEYS[5])",
                  "redis.call('HSET', KEYS[1], ARGV[1], 1, 'token', s)",
                  "redis.call('PEXPIRE', KEYS[1], lease)",
                  "return {1, t, 1}"));

  /** KEYS: write, read, wait, tokens, legacy fence. ARGV: owner field, lease ms, owner. */
  static final LuaScript ACQUIRE_READ =
      new LuaScript(
          "acquire-read",
          RW_FUNCTIONS
              + TOKEN_FUNCTIONS
              + String.join(
                  "\n",
                  "local now = now_ms()",
                  "local lease = tonumber(ARGV[2])",
                  "purge_readers(KEYS[2], now)",
                  "purge_waiting(KEYS[3], now)",
                  "if redis.call('EXISTS', KEYS[1]) == 1",
                  "    and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then",
                  "  return {0, redis.call('PTTL', KEYS[1])}",
                  "end",
                  "local mine = redis.call('HGET', KEYS[2], 'h:' .. ARGV[3])",
                  "if not mine then",
                  "  local waiting = redis.call('HKEYS', KEYS[3])",
                  "  for i = 1, #waiting do",
                  "    if waiting[i] ~= ARGV[3] then return {0, -1} end",
                  "  end",
                  "end",
                  "local n = redis.call('HINCRBY', KEYS[2], 'h:' .. ARGV[3], 1)",
                  "redis.call('HSET', KEYS[2], 'e:' .. ARGV[3], now + lease)",
                  "local t",
                  "if n == 1 then",
                  "  local s",
                  "  t, s = peek(KEYS[4], KEYS[5])",
                  "  redis.call('HSET', KEYS[2], 't:' .. ARGV[3], s)",
                  "else",
                  "  t = tonumber(redis.call('HGET', KEYS[2], 't:' .. ARGV[3]))",
                  "end",
                  "stretch(KEYS[2], lease)",
                  "return {1, t, n}"));

  /** KEYS: read. ARGV: owner, lease ms. */
  static final LuaScript EXTEND_READ =
      new LuaScript(
          "extend-read",
          RW_FUNCTIONS
              + String.join(
                  "\n",
                  "local now = now_ms()",
                  "purge_readers(KEYS[1], now)",
                  "if redis.call('HEXISTS', KEYS[1], 'h:' .. ARGV[1]) == 0 then return 0 end",
                  "redis.call('HSET', KEYS[1], 'e:' .. ARGV[1], now + tonumber(ARGV[2]))",
                  "stretch(KEYS[1], tonumber(ARGV[2]))",
                  "return 1"));

  /** KEYS: read. ARGV: owner, channel, when to wake. */
  static final LuaScript RELEASE_READ =
      new LuaScript(
          "release-read",
          RW_FUNCTIONS
              + WAKE_FUNCTION
              + String.join(
                  "\n",
                  "purge_readers(KEYS[1], now_ms())",
                  "local n = redis.call('HGET', KEYS[1], 'h:' .. ARGV[1])",
                  "if not n then return 0 end",
                  "if tonumber(n) > 1 then",
                  "  redis.call('HINCRBY', KEYS[1], 'h:' .. ARGV[1], -1)",
                  "  return 1",
                  "end",
                  "redis.call('HDEL', KEYS[1], 'h:' .. ARGV[1], 'e:' .. ARGV[1], 't:' .. ARGV[1])",
                  "wake(ARGV[2], 'released', ARGV[3])",
                  "return 2"));

  /** KEYS: wait. ARGV: owner, channel, when to wake. */
  static final LuaScript WITHDRAW =
      new LuaScript(
          "withdraw",
          WAKE_FUNCTION
              + String.join(
                  "\n",
                  "if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then",
                  "  wake(ARGV[2], 'withdrawn', ARGV[3])",
                  "end",
                  "return 1"));

  /**
   * KEYS: write (or exclusive hold), read. Answers {@code {owner field or false, holds, pttl,
   * readers}} with expired readers left out.
   */
  static final LuaScript READ =
      new LuaScript(
          "read",
          RW_FUNCTIONS
              + String.join(
                  "\n",
                  "local h = redis.call('HGETALL', KEYS[1])",
                  "for i = 1, #h, 2 do",
                  "  if string.sub(h[i], 1, 2) == 'o:' then",
                  "    return {h[i], tonumber(h[i + 1]), redis.call('PTTL', KEYS[1]), 0}",
                  "  end",
                  "end",
                  "local readers = 0",
                  "if #KEYS > 1 then",
                  "  local now = now_ms()",
                  "  local r = redis.call('HGETALL', KEYS[2])",
                  "  for i = 1, #r, 2 do",
                  "    if string.sub(r[i], 1, 2) == 'e:' and tonumber(r[i + 1]) > now then",
                  "      readers = readers + 1",
                  "    end",
                  "  end",
                  "end",
                  "return {false, 0, -2, readers}"));
}
