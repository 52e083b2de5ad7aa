package dev.locksmith.redis;

import dev.locksmith.tck.ManyLeases;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One client keeps many auto-renewed leases on a real Redis: its one renewal thread must keep up.
 *
 * <p>20,000 leases of 2 s need a renewal each before it runs out, at least 10,000 a second, and
 * 15,000 a second to renew each at a third of its lease. One round trip per renewal, one after
 * another, reached 2,800-3,700 a second on a 2-core machine, and lost leases; the store pipelines
 * the batch the engine hands it.
 */
class RedisManyLeasesTest {

  static RedisServer redis;

  @BeforeAll
  static void start() {
    redis = RedisServer.startVolatile();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @Test
  @DisplayName(
      "one client keeps 20,000 auto-renewed 2 s leases for two lease times past the last acquire:"
          + " none is lost, and the store holds them all")
  void keepsTwentyThousandShortLeases() throws Exception {
    ManyLeases.assertKept(redis.uri(), 20_000, Duration.ofSeconds(2));
  }
}
