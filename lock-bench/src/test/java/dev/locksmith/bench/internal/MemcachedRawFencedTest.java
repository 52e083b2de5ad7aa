package dev.locksmith.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.bench.LockTarget.Held;
import dev.locksmith.memcached.fixture.MemcachedInspector;
import dev.locksmith.tck.fixture.MemcachedServer;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The memcached {@code raw-fenced} bound does the work of Locksmith's store, or its numbers bound
 * nothing: it excludes other owners, draws tokens that rise across holders from one counter shared
 * by every name (created at the clock, so a lost counter restarts above them; above a per-name
 * counter an earlier version left, which it deletes), and keeps no item per name once a lock is
 * released. On a real {@code memcached} with little memory, a fresh one per test; two targets stand
 * for two processes.
 */
class MemcachedRawFencedTest {

  private ServerProcess server;
  private String hostPort;

  @BeforeEach
  void startServer() {
    // 2 MB, so that a flood of other items evicts the idle counter as memory pressure would.
    server = MemcachedServer.start(2);
    hostPort = "127.0.0.1:" + server.port();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  @DisplayName(
      "memcached/raw-fenced excludes another owner and gives each new holder a greater token, and a"
          + " released lock leaves only the shared counter")
  void tokensRiseAndNothingStays() throws Exception {
    try (MemcachedTargets.RawFenced a = new MemcachedTargets.RawFenced(hostPort);
        MemcachedTargets.RawFenced b = new MemcachedTargets.RawFenced(hostPort)) {
      Held first = a.tryOnce("rising", a.ownerOfNextHold());
      assertThat(first).isNotNull();
      assertThat(b.tryOnce("rising", b.ownerOfNextHold())).as("another owner while held").isNull();
      assertThat(a.tryOnce("rising", a.ownerOfNextHold()))
          .as("the same target's next hold, another owner, while held")
          .isNull();
      long last = token("rising");
      first.release();
      assertThatThrownBy(first::release).hasMessageContaining("was not held");

      for (int i = 0; i < 20; i++) {
        Held held = (i % 2 == 0 ? b : a).acquire("rising");
        long token = token("rising");
        assertThat(token).as("hold " + i).isGreaterThan(last);
        last = token;
        held.release();
        assertThat(keys())
            .as("after release " + i)
            .containsExactly(MemcachedTargets.RawFenced.COUNTER);
      }
      assertThat(counter()).as("the shared counter holds the last token").isEqualTo(last);

      for (int i = 0; i < 200; i++) {
        (i % 2 == 0 ? a : b).acquire("name-" + i).release();
      }
      assertThat(keys())
          .as("items after 200 names were acquired and released")
          .containsExactly(MemcachedTargets.RawFenced.COUNTER);
    }
  }

  @Test
  @DisplayName(
      "memcached/raw-fenced hands out a greater token after a flood of other items evicted the"
          + " shared counter")
  void tokensSurviveEviction() throws Exception {
    try (MemcachedTargets.RawFenced a = new MemcachedTargets.RawFenced(hostPort)) {
      long last = 0;
      for (int i = 0; i < 50; i++) {
        Held held = a.acquire("order:42");
        last = token("order:42");
        held.release();
      }
      int rounds = floodUntilEvicted(MemcachedTargets.RawFenced.COUNTER);
      long evicted = nanos();
      Held next = a.acquire("order:42");
      assertThat(token("order:42"))
          .as("the token after %d rounds of 20,000 items evicted the counter", rounds)
          .isGreaterThan(last)
          .isGreaterThanOrEqualTo(evicted);
      next.release();
      assertThat(keys())
          .as("items once released")
          .containsExactly(MemcachedTargets.RawFenced.COUNTER);
    }
  }

  @Test
  @DisplayName(
      "memcached/raw-fenced draws above a per-name counter an earlier version left, and deletes it")
  void honoursLegacyCounter() throws Exception {
    try (MemcachedTargets.RawFenced a = new MemcachedTargets.RawFenced(hostPort)) {
      a.acquire("first").release(); // The shared counter exists, at the clock.
      // An earlier version's counter, ahead of the clock by 1,000 s.
      long legacy = nanos() + 1_000_000_000_000L;
      String legacyKey = MemcachedTargets.RawFenced.legacyFenceKey("upgraded");
      assertThat(a.client.set(legacyKey, 0, Long.toString(legacy)).get()).isTrue();
      Held held = a.acquire("upgraded");
      // Its incr read it as legacy + 1; the token is drawn above that.
      assertThat(token("upgraded")).isEqualTo(legacy + 2);
      assertThat(keys())
          .as("the per-name counter is gone before the acquire returns")
          .containsExactlyInAnyOrder(
              MemcachedTargets.RawFenced.COUNTER, MemcachedTargets.RawFenced.lockKey("upgraded"));
      held.release();

      Held next = a.acquire("another");
      assertThat(token("another")).as("other names draw above it too").isEqualTo(legacy + 3);
      next.release();
    }
  }

  /**
   * Stores other items the size of {@code key}'s (memcached evicts within a slab class of items of
   * one size), 20,000 a round without replies, until {@code key} is gone; returns how many rounds
   * it took.
   */
  private int floodUntilEvicted(String key) throws IOException {
    String value = value(key);
    for (int round = 1; round <= 100; round++) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
        s.setSoTimeout(10_000);
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
          // A key of the counter key's length, a value of its value's length: the same class.
          String name = String.format("f%0" + (key.length() - 1) + "d", round * 20_000L + i);
          batch.append("set ").append(name).append(" 0 0 ").append(value.length());
          batch.append(" noreply\r\n").append(value).append("\r\n");
        }
        // Answered once every set before it on this connection was stored.
        batch.append("version\r\n");
        s.getOutputStream().write(batch.toString().getBytes(StandardCharsets.US_ASCII));
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        String answer = in.readLine();
        assertThat(answer).as("memcached's answer to the flood").startsWith("VERSION");
      }
      if (!MemcachedServer.command(server, "get " + key).startsWith("VALUE ")) {
        return round;
      }
    }
    throw new AssertionError("100 rounds of 20,000 items did not evict " + key);
  }

  /** The token recorded in the lock item of {@code name} ({@code <owner> <token>}). */
  private long token(String name) {
    String value = value(MemcachedTargets.RawFenced.lockKey(name));
    return Long.parseLong(value.substring(value.lastIndexOf(' ') + 1));
  }

  /** The shared counter's value. */
  private long counter() {
    return Long.parseLong(value(MemcachedTargets.RawFenced.COUNTER));
  }

  /** The text value of the item at {@code key}, which must exist. */
  private String value(String key) {
    String[] lines = MemcachedServer.command(server, "get " + key).split("\r\n");
    assertThat(lines[0]).as("the item " + key).startsWith("VALUE ");
    return lines[1];
  }

  private void delete(String key) {
    assertThat(MemcachedServer.command(server, "delete " + key)).startsWith("DELETED");
  }

  /** The key of every unexpired item of the target's layout ({@code raw-fenced:…}). */
  private List<String> keys() {
    return new MemcachedInspector("127.0.0.1", server.port()).keys("raw-fenced:");
  }

  /** The wall clock in nanoseconds, as the counter is created at. */
  private static long nanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
